"""LLM endpoint, timeouts, retries and concurrency (FUZI_LLM_*)."""

from pydantic import Field, SecretStr, field_validator

from bot.settings.base import Section, section
from core.llm.choice import parse_models
from core.llm.retry import RetryPolicy

# Calls in flight to an unproven or failing endpoint (the bulkhead's floor); it grows to
# FUZI_LLM_MAX_CONCURRENT_HEALTHY while calls succeed (core/llm/bulkhead.py).
BULKHEAD_FLOOR = 16


class LLMSettings(Section):
    """LLM endpoint (FUZI_LLM_*): any OpenAI-compatible API; without a key Fuzi answers from the texts.

    Backoff, breaker and bulkhead-wait values are constants of core/llm (docs/settings.md).
    """

    model_config = section("FUZI_LLM_")

    base_url: str = Field("https://api.deepseek.com", description="OpenAI-compatible endpoint (DeepSeek by default)")
    api_key: SecretStr | None = Field(None, description="the endpoint's key; unset: retrieval-only answers (L2)")
    model: str = Field("deepseek-chat", description="the chat model the endpoint serves")
    models: str = Field(
        "", description="comma-separated models a chat may pick with /settings model (besides the default)"
    )
    timeout_s: float = Field(30.0, gt=0, description="one non-streamed completion (background memory updates)")
    first_token_timeout_s: float = Field(
        15.0, gt=0, description="a stream's first token (text or tool call); raise it for a slow local model"
    )
    retry_attempts: int = Field(3, ge=1, description="tries per call on a transient error (1: no retry)")
    max_concurrent_healthy: int = Field(
        256, ge=1, description="most LLM calls in flight while calls succeed: your provider's concurrency limit"
    )
    vision: bool = Field(
        False, description="the model takes images (gpt-4o, qwen-vl …): a photo also goes to it, beside its OCR text"
    )

    @field_validator("models")
    @classmethod
    def _known_names(cls, value: str) -> str:
        parse_models(value)  # a malformed name stops the start, naming it
        return value

    @property
    def model_list(self) -> tuple[str, ...]:
        """FUZI_LLM_MODELS as names, in order (core/llm/choice.py)."""
        return parse_models(self.models)

    def retry_policy(self) -> RetryPolicy:
        """The client's retry policy: FUZI_LLM_RETRY_ATTEMPTS, the backoff constants of RetryPolicy."""
        return RetryPolicy(attempts=self.retry_attempts)

    @property
    def bulkhead_floor(self) -> int:
        """Calls in flight allowed to an unproven or failing endpoint (never above the ceiling)."""
        return min(BULKHEAD_FLOOR, self.max_concurrent_healthy)
