"""Rate limits, input/output checks, usage budgets (FUZI_GUARD_*)."""

from pydantic import Field

from bot.settings.base import Section, section


class GuardSettings(Section):
    model_config = section("FUZI_GUARD_")

    per_minute: int = Field(15, ge=1)
    per_day: int = Field(150, ge=1)
