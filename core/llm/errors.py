"""LLM failures, split by who must act: transient (degrade) versus configuration (tell operators)."""

from __future__ import annotations


class LLMError(Exception):
    """Base class for every LLM failure the engine handles."""


class LLMUnavailable(LLMError):
    """The LLM cannot answer now (timeouts, 429/5xx after retries, connection errors): degrade."""


class LLMTimeout(LLMUnavailable):
    """The endpoint did not answer in time: no first token, a stall between tokens, a call timeout,
    or no time left in the reply's budget. The same endpoint without tools (L1) would most likely
    hang too, so the ladder answers from L2 at once."""


class CircuitOpen(LLMUnavailable):
    """The circuit breaker rejected the call without trying."""


class LLMConfigError(LLMError):
    """400/401/403 and the like: retrying or degrading will not help; an operator must fix settings."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class LLMNotConfigured(LLMConfigError):
    """No API key is configured: the engine runs retrieval-only (L2)."""


class LLMBusy(LLMUnavailable):
    """Too many LLM calls are in flight (the bulkhead is full) and no slot freed up in time."""
