"""Engine-wide behaviour (FUZI_ENGINE_*)."""

from pydantic import Field

from bot.settings.base import Section, section


class EngineSettings(Section):
    model_config = section("FUZI_ENGINE_")

    max_input_chars: int = Field(4000, ge=1)
    default_skill: str = "teaching"
