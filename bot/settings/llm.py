"""LLM endpoint, retry policy and circuit breaker (FUZI_LLM_*)."""

from pydantic import Field, SecretStr

from bot.settings.base import Section, section
from core.llm.retry import RetryPolicy


class LLMSettings(Section):
    model_config = section("FUZI_LLM_")

    base_url: str = "https://api.deepseek.com"
    api_key: SecretStr | None = None
    model: str = "deepseek-chat"
    timeout_s: float = Field(30.0, gt=0)
    retry_attempts: int = Field(3, ge=1)
    retry_base_s: float = Field(0.5, ge=0)
    retry_max_s: float = Field(8.0, ge=0)
    retry_jitter: float = Field(0.25, ge=0, lt=1)
    retry_after_max_s: float = Field(20.0, ge=0)
    breaker_failures: int = Field(5, ge=1)
    breaker_reset_s: float = Field(30.0, gt=0)

    def retry_policy(self) -> RetryPolicy:
        """The client's retry policy built from these settings."""
        return RetryPolicy(
            attempts=self.retry_attempts,
            base_s=self.retry_base_s,
            max_s=self.retry_max_s,
            jitter=self.retry_jitter,
            retry_after_max_s=self.retry_after_max_s,
        )
