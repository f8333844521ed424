"""Engine-wide behaviour (FUZI_ENGINE_*)."""

from pydantic import Field, field_validator

from bot.settings.base import Section, section
from core.skills import BUILTIN_SKILLS


class EngineSettings(Section):
    model_config = section("FUZI_ENGINE_")

    max_input_chars: int = Field(4000, ge=1)  # longer messages are stored but not answered
    default_skill: str = "teaching"  # the skill a new chat starts with
    l2_passages: int = Field(3, ge=1, le=10)  # passages quoted in a retrieval-only (L2) answer
    shutdown_timeout_s: float = Field(5.0, gt=0)  # how long shutdown waits for background memory updates
    # wall time for one reply, all fallback levels together; at the deadline the answer comes from L2
    reply_deadline_s: float = Field(120.0, ge=4.0)
    # a reply whose model has sent no token this long is answered from the texts (L2): hangs are not waited out
    degrade_after_s: float = Field(15.0, gt=0)

    @field_validator("default_skill")
    @classmethod
    def _known_skill(cls, v: str) -> str:
        names = [s.name for s in BUILTIN_SKILLS]
        if v not in names:
            raise ValueError(f"must be one of {', '.join(names)}")
        return v
