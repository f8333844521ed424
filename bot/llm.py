"""The LLM port as the engine uses it: the client behind a circuit breaker behind a bulkhead."""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

from bot.settings import Settings
from core.llm.breaker import CircuitBreakerLLM
from core.llm.bulkhead import BulkheadLLM
from core.llm.errors import LLMNotConfigured
from core.llm.types import LLM

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = structlog.get_logger(__name__)


def build_llm(settings: Settings, redis: Redis | None = None) -> BulkheadLLM | None:
    """The client behind a breaker behind a bulkhead, or None when no API key is configured (L2 mode).

    With `redis` the breaker's state is shared by every process (one half-open probe across all).
    The openai SDK (about half a second of imports) is loaded only when a key is configured.
    """
    s = settings.llm
    if s.api_key is None or not s.api_key.get_secret_value():
        log.warning("llm_not_configured", hint="set FUZI_LLM_API_KEY; answering from the texts alone (L2)")
        return None
    from core.llm.client import STREAM_IDLE_TIMEOUT_S, OpenAIChatClient

    try:
        client = OpenAIChatClient(
            base_url=s.base_url,
            api_key=s.api_key.get_secret_value() if s.api_key else None,
            model=s.model,
            timeout_s=s.timeout_s,
            first_token_timeout_s=s.first_token_timeout_s,
            stream_idle_timeout_s=STREAM_IDLE_TIMEOUT_S,
            retry=s.retry_policy(),
        )
    except LLMNotConfigured:
        log.warning("llm_not_configured", hint="set FUZI_LLM_API_KEY; answering from the texts alone (L2)")
        return None
    if redis is not None:  # N processes: one shared breaker state, one half-open probe across all
        from core.llm.breaker_redis import SharedCircuitBreakerLLM  # the embedded default never imports redis-py

        breaker: LLM = SharedCircuitBreakerLLM(client, redis, prefix=settings.redis.prefix)
    else:
        breaker = CircuitBreakerLLM(client)
    return BulkheadLLM(breaker, max_concurrent=s.bulkhead_floor, max_healthy=s.max_concurrent_healthy)
