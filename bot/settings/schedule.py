"""Scheduled posts: the daily passage and the group digest (FUZI_SCHEDULE_*; docs/schedule.md)."""

from datetime import time

from pydantic import Field, field_validator

from bot.settings.base import Section, section


class ScheduleSettings(Section):
    """Attributes:
    enabled: run the scheduler in this process (every replica may: claims keep posts single).
    grace_min: a post found later than this after its time (every process was down) is skipped, logged.
    digest_at: local time (HH:MM, the chat's zone) of the daily group digest.
    """

    model_config = section("FUZI_SCHEDULE_")

    enabled: bool = True
    grace_min: int = Field(120, ge=1, le=1440)
    digest_at: str = "21:00"

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
