"""Conversation window, summary, long-term memory (FUZI_MEMORY_*)."""

from pydantic import Field

from bot.settings.base import Section, section


class MemorySettings(Section):
    model_config = section("FUZI_MEMORY_")

    window_rounds: int = Field(5, ge=1)
    summary_max_chars: int = Field(300, ge=50)
    prompt_budget_tokens: int = Field(6000, ge=500)
