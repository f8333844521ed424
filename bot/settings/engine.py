"""Engine-wide behaviour (FUZI_ENGINE_*)."""

from pydantic import Field

from bot.settings.base import Section, section


class EngineSettings(Section):
    model_config = section("FUZI_ENGINE_")

    max_input_chars: int = Field(4000, ge=1)  # longer messages are stored but not answered
    default_skill: str = "teaching"  # teaching, poetry or debate
    l2_passages: int = Field(3, ge=1, le=10)  # passages quoted in a retrieval-only (L2) answer
    shutdown_timeout_s: float = Field(5.0, gt=0)  # how long shutdown waits for background memory updates
