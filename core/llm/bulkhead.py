"""A bulkhead around any :class:`~core.llm.types.LLM`: at most N calls in flight at once.

A burst of people (or of background memory updates) must not push dozens of requests at an endpoint
that is failing: while it is, the requests would only pile up and time out together. Calls beyond
``max_concurrent`` wait for a slot, at most ``max_wait_s`` and never past their reply's budget
(core/llm/budget.py); a call that gets no slot raises :class:`~core.llm.errors.LLMBusy`, which the
fallback ladder treats like any unavailability. Put it *outside* the circuit breaker: the waiters then
meet the breaker after the calls ahead of them opened it, and fail fast instead of trying.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog

from core.llm.budget import capped
from core.llm.errors import LLMBusy
from core.llm.types import LLM, Completion, Message, StreamEvent

log = structlog.get_logger(__name__)


class BulkheadLLM:
    """Limits concurrent calls to ``inner``; implements the LLM port itself.

    Args:
        inner: the LLM to protect (normally a ``CircuitBreakerLLM``).
        max_concurrent: calls allowed in flight at once.
        max_wait_s: the longest a call waits for a slot (also capped by its reply's budget).
    """

    def __init__(self, inner: LLM, *, max_concurrent: int = 16, max_wait_s: float = 10.0):
        if max_concurrent < 1 or max_wait_s < 0:
            raise ValueError("max_concurrent must be >= 1 and max_wait_s >= 0")
        self.inner = inner
        self.max_concurrent = max_concurrent
        self._max_wait_s = max_wait_s
        self._slots = asyncio.Semaphore(max_concurrent)
        self.in_flight = 0
        self.peak = 0
        self.rejected = 0

    @property
    def state(self) -> str | None:
        """The inner breaker's state (closed/open/half_open), when the inner LLM has one."""
        return getattr(self.inner, "state", None)

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """The inner completion, once a slot is free."""
        async with self._slot():
            return await self.inner.complete(messages, tools=tools, temperature=temperature, max_tokens=max_tokens)

    async def stream(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """The inner stream; the slot is held until the stream ends or is closed."""
        async with self._slot():
            events = self.inner.stream(messages, tools=tools, temperature=temperature, max_tokens=max_tokens)
            try:
                async for event in events:
                    yield event
            finally:
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()

    async def aclose(self) -> None:
        """Close the inner LLM's resources, if it has any."""
        aclose = getattr(self.inner, "aclose", None)
        if aclose is not None:
            await aclose()

    @asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        wait_s = capped(self._max_wait_s)
        try:
            async with asyncio.timeout(wait_s):
                await self._slots.acquire()
        except TimeoutError:
            self.rejected += 1
            log.warning("llm_bulkhead_full", max_concurrent=self.max_concurrent, waited_s=round(wait_s or 0, 2))
            raise LLMBusy(f"{self.max_concurrent} LLM calls in flight; no slot within {wait_s:.1f}s") from None
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            yield
        finally:
            self.in_flight -= 1
            self._slots.release()
