"""LLM endpoint, retry policy and circuit breaker (FUZI_LLM_*)."""

from pydantic import Field, SecretStr

from bot.settings.base import Section, section
from core.llm.retry import RetryPolicy


class LLMSettings(Section):
    model_config = section("FUZI_LLM_")

    base_url: str = "https://api.deepseek.com"
    api_key: SecretStr | None = None
    model: str = "deepseek-chat"
    timeout_s: float = Field(30.0, gt=0)  # a non-streamed completion (background memory updates)
    connect_timeout_s: float = Field(5.0, gt=0)
    first_token_timeout_s: float = Field(15.0, gt=0)  # a stream's first token (text or tool call)
    stream_idle_timeout_s: float = Field(10.0, gt=0)  # the longest gap between two chunks once tokens flow
    retry_attempts: int = Field(3, ge=1)
    retry_base_s: float = Field(0.5, ge=0)
    retry_max_s: float = Field(8.0, ge=0)
    retry_jitter: float = Field(0.25, ge=0, lt=1)
    retry_after_max_s: float = Field(20.0, ge=0)
    breaker_failures: int = Field(5, ge=1)
    breaker_reset_s: float = Field(30.0, gt=0)
    max_concurrent: int = Field(16, ge=1)  # bulkhead floor: calls in flight to an unproven/failing endpoint
    max_concurrent_healthy: int = Field(256, ge=1)  # bulkhead ceiling, reached while calls succeed
    max_wait_s: float = Field(10.0, ge=0)  # the longest a call waits for a bulkhead slot
    vision: bool = False  # the model takes images: a photo also goes to it, beside its OCR text (docs/media.md)

    def retry_policy(self) -> RetryPolicy:
        """The client's retry policy built from these settings."""
        return RetryPolicy(
            attempts=self.retry_attempts,
            base_s=self.retry_base_s,
            max_s=self.retry_max_s,
            jitter=self.retry_jitter,
            retry_after_max_s=self.retry_after_max_s,
        )
