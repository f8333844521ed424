"""Rate limits, input/output checks, usage budgets (FUZI_GUARD_*)."""

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator

from bot.settings.base import Section, section


class GuardSettings(Section):
    """Guard settings; every limit is per canonical person (linked accounts count as one)."""

    model_config = section("FUZI_GUARD_")

    per_minute: int = Field(15, ge=1)  # answers per person in any 60 s window
    per_day: int = Field(150, ge=1)  # answers per person in any 24 h window
    per_group_per_minute: int | None = Field(30, ge=1)  # answers per group chat per 60 s; empty: no limit
    daily_token_budget: int | None = Field(None, ge=1)  # tokens per person per day; empty: no budget
    usage_timezone: str = "UTC"  # the calendar day for usage and budgets
    verbatim_min_chars: int = Field(40, ge=12)  # a reply repeating this many system-prompt chars is blocked
    injection_classifier: bool = True  # run the learned n-gram classifier after the injection rules
    second_opinion: bool = True  # with an LLM configured, ask it about messages the detector is unsure of
    second_opinion_low: float = Field(0.4, ge=0.0, le=1.0)  # unflagged messages scored >= this are asked about
    second_opinion_high: float = Field(0.9, ge=0.0, le=1.0)  # classifier-only flags scored <= this are asked about
    second_opinion_timeout_s: float = Field(3.0, gt=0)  # past it the local decision stands

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
