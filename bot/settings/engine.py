"""Engine-wide behaviour (FUZI_ENGINE_*)."""

from pydantic import Field, field_validator

from bot.settings.base import Section, section
from core.skills import BUILTIN_SKILLS


class EngineSettings(Section):
    """Engine (FUZI_ENGINE_*): input limit, first skill, the one clock per reply."""

    model_config = section("FUZI_ENGINE_")

    max_input_chars: int = Field(4000, ge=1, description="longer messages are stored but not answered")
    default_skill: str = Field("teaching", description="the skill a new chat starts with")
    reply_deadline_s: float = Field(
        120.0,
        ge=4.0,
        description="wall time for one reply, all fallback levels together; then L2 answers from the texts",
    )
    degrade_after_s: float = Field(
        15.0, gt=0, description="a reply whose model sent no token this long is answered from the texts (L2)"
    )
    inbox_max_age_s: float = Field(
        600.0,
        gt=0,
        description="an update a dead process left unanswered is answered by a live one; if older, the person is told it was lost",
    )

    @field_validator("default_skill")
    @classmethod
    def _known_skill(cls, v: str) -> str:
        names = [s.name for s in BUILTIN_SKILLS]
        if v not in names:
            raise ValueError(f"must be one of {', '.join(names)}")
        return v
