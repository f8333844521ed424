"""Scheduled posts: the daily passage and the group digest (FUZI_SCHEDULE_*; docs/schedule.md)."""

from datetime import time

from pydantic import Field, field_validator

from bot.settings.base import Section, section


class ScheduleSettings(Section):
    """Scheduled posts (FUZI_SCHEDULE_*): daily passage and group digest (docs/schedule.md)."""

    model_config = section("FUZI_SCHEDULE_")

    enabled: bool = Field(
        True, description="false: this process posts nothing scheduled (others still do; each post is claimed once)"
    )
    digest_at: str = Field("21:00", description="local time (HH:MM, the chat's zone) of the opt-in group digest")

    @field_validator("digest_at")
    @classmethod
    def _hh_mm(cls, v: str) -> str:
        try:
            hour, minute = (int(p) for p in v.strip().split(":"))
            time(hour, minute)
        except ValueError:
            raise ValueError("must be HH:MM (24-hour), e.g. 21:00") from None
        return f"{hour:02d}:{minute:02d}"

    @property
    def digest_time(self) -> time:
        hour, minute = (int(p) for p in self.digest_at.split(":"))
        return time(hour, minute)
