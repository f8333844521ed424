"""Conversation window, summary, long-term memory, profile, account linking (FUZI_MEMORY_*)."""

from pydantic import Field, model_validator

from bot.settings.base import Section, section


class MemorySettings(Section):
    model_config = section("FUZI_MEMORY_")

    window_rounds: int = Field(5, ge=1)  # rounds (user + reply) sent verbatim
    summary_max_chars: int = Field(300, ge=50)  # longest running summary
    summary_batch_messages: int = Field(40, ge=2)  # most overflow messages per summary call
    prompt_budget_tokens: int = Field(6000, ge=500)  # estimated tokens for the whole model input
    tool_reserve_tokens: int = Field(1500, ge=0)  # part of the budget left free for tool results
    facts_in_prompt: int = Field(5, ge=0)  # most relevant facts put into the system prompt
    max_facts: int = Field(200, ge=1)  # facts one person may hold
    fact_max_chars: int = Field(500, ge=20)  # longer facts are cut
    profile_enabled: bool = True  # infer a profile after each exchange (one small LLM call)
    link_code_ttl_s: int = Field(600, ge=60)  # /link code lifetime
    link_max_failures: int = Field(5, ge=1)  # wrong codes per person within the window below
    link_failure_window_s: int = Field(600, ge=60)

    @model_validator(mode="after")
    def _reserve_fits(self) -> "MemorySettings":
        if self.tool_reserve_tokens >= self.prompt_budget_tokens:
            raise ValueError("tool_reserve_tokens must be smaller than prompt_budget_tokens")
        return self
