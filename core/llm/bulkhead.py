"""A bulkhead around any :class:`~core.llm.types.LLM`: an adaptive limit on the calls in flight.

A burst of people (or of background memory updates) must not push dozens of requests at an endpoint
that is failing: while it is, the requests would only pile up and time out together. But the same
limit must not ration an endpoint that answers: with a fixed 16, a burst of 100 people sent 20 of
them to the plain L1 answer although nothing was failing (docs/engine.md, "A burst keeps the model").

So the limit adapts, like TCP's slow start:

* it starts at ``max_concurrent`` (the *floor*), which is all an unproven or failing endpoint gets;
* every call that gets its first event (a streamed token or tool call, or a finished completion)
  raises the limit by one, up to ``max_healthy`` (the *ceiling*): one round of answers doubles it;
* every call that fails as unavailable (timeout, 5xx, open breaker) halves it, never below the floor.

Calls beyond the limit wait in a FIFO queue (``queued``), at most ``max_wait_s`` and never past
their reply's budget (core/llm/budget.py); a call that gets no slot raises
:class:`~core.llm.errors.LLMBusy`, which the fallback ladder treats like any unavailability. A hung
endpoint never produces a first event, so its limit stays at the floor and the waiters time out or
meet the breaker. Put it *outside* the circuit breaker: the waiters then meet the breaker after the
calls ahead of them opened it, and fail fast instead of trying.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager

import structlog

from core.llm.budget import capped
from core.llm.errors import LLMBusy, LLMUnavailable
from core.llm.types import LLM, Completion, StreamEvent
from core.llm.wrapper import LLMCall, WrapperLLM, closing

log = structlog.get_logger(__name__)


class BulkheadLLM(WrapperLLM):
    """Limits concurrent calls to ``inner`` adaptively; implements the LLM port itself.

    Args:
        inner: the LLM to protect (normally a ``CircuitBreakerLLM``).
        max_concurrent: the floor: calls in flight allowed to an unproven or failing endpoint.
        max_wait_s: the longest a call waits for a slot (also capped by its reply's budget).
        max_healthy: the ceiling the limit grows to while calls succeed (default: the floor, i.e. a
            fixed limit).
    """

    def __init__(
        self, inner: LLM, *, max_concurrent: int = 16, max_wait_s: float = 10.0, max_healthy: int | None = None
    ):
        ceiling = max_concurrent if max_healthy is None else max_healthy
        if max_concurrent < 1 or max_wait_s < 0 or ceiling < max_concurrent:
            raise ValueError("need max_concurrent >= 1, max_wait_s >= 0 and max_healthy >= max_concurrent")
        super().__init__(inner)
        self.max_concurrent = max_concurrent
        self.max_healthy = ceiling
        self._max_wait_s = max_wait_s
        self.limit = max_concurrent
        self._waiters: deque[asyncio.Future[None]] = deque()
        self.in_flight = 0
        self.peak = 0
        self.rejected = 0

    @property
    def queued(self) -> int:
        """Calls waiting for a slot now."""
        return sum(1 for w in self._waiters if not w.done())

    async def around_complete(self, call: LLMCall) -> Completion:
        """The inner completion, once a slot is free."""
        async with self._slot():
            try:
                result = await call.complete(self.inner)
            except LLMUnavailable:
                self._failed()
                raise
            self._succeeded()
            return result

    async def around_stream(self, call: LLMCall) -> AsyncGenerator[StreamEvent, None]:
        """The inner stream; the slot is held until the stream ends or is closed."""
        async with self._slot():
            first = True
            try:
                async with closing(call.stream(self.inner)) as events:
                    async for event in events:
                        if first:
                            first = False
                            self._succeeded()
                        yield event
            except LLMUnavailable:
                self._failed()
                raise

    # ------------------------------------------------------------------ the adaptive limit
    def _succeeded(self) -> None:
        if self.limit < self.max_healthy:
            self.limit += 1
            self._wake()

    def _failed(self) -> None:
        lowered = max(self.max_concurrent, self.limit // 2)
        if lowered < self.limit:
            log.info("llm_bulkhead_limit_lowered", limit=lowered, was=self.limit)
            self.limit = lowered

    def _wake(self) -> None:
        """Hand free slots to the waiters in arrival order (the slot is taken on their behalf)."""
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._enter()
                waiter.set_result(None)

    def _enter(self) -> None:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def _leave(self) -> None:
        self.in_flight -= 1
        self._wake()

    async def _acquire(self) -> None:
        if self.in_flight < self.limit and not self.queued:
            self._enter()
            return
        wait_s = capped(self._max_wait_s)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(wait_s):
                await waiter
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled():
                self._leave()  # the slot was handed over just as the wait ended: give it back
            else:
                waiter.cancel()
            if isinstance(exc, TimeoutError):
                self.rejected += 1
                log.warning("llm_bulkhead_full", limit=self.limit, queued=self.queued, waited_s=round(wait_s or 0, 2))
                raise LLMBusy(f"{self.limit} LLM calls in flight; no slot within {wait_s or 0:.1f}s") from None
            raise

    @asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        await self._acquire()
        try:
            yield
        finally:
            self._leave()
