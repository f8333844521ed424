"""Conversation window, prompt budget and profile (FUZI_MEMORY_*)."""

from pydantic import Field

from bot.settings.base import Section, section


class MemorySettings(Section):
    """Memory (FUZI_MEMORY_*): summaries, facts and /link limits are MemoryConfig constants."""

    model_config = section("FUZI_MEMORY_")

    window_rounds: int = Field(5, ge=1, description="recent rounds (message and reply) sent to the model verbatim")
    prompt_budget_tokens: int = Field(
        6000, ge=2000, description="estimated tokens of the whole model input: fit it to the model's context"
    )
    profile_enabled: bool = Field(True, description="infer a profile after each exchange (one small LLM call)")
