"""Conversation window, summary, long-term memory, profile, account linking (FUZI_MEMORY_*)."""

from pydantic import Field, ValidationInfo, field_validator

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

    @field_validator("tool_reserve_tokens")
    @classmethod
    def _reserve_fits(cls, v: int, info: ValidationInfo) -> int:
        budget = info.data.get("prompt_budget_tokens")
        if budget is not None and v >= budget:
            raise ValueError("must be smaller than FUZI_MEMORY_PROMPT_BUDGET_TOKENS")
        return v
