"""A circuit breaker around any :class:`~core.llm.types.LLM`: fail fast while the endpoint is down.

States: *closed* (calls pass; consecutive failures are counted), *open* (every call raises
:class:`~core.llm.errors.CircuitOpen` at once, for ``reset_s``), *half-open* (exactly one probe call
passes; everyone else meanwhile gets ``CircuitOpen``; the probe's outcome closes or reopens it).
This module is the one policy; the state and its transitions live in a store
(core/llm/breaker_store.py: in memory; core/llm/breaker_redis.py: shared by every process).

What counts:
- A *failure* is a call (all its retry attempts) ending in ``LLMUnavailable`` — timeouts included —
  and a call cancelled after its reply's budget ran out (core/llm/budget.py): a hang the caller
  stopped waiting for is the endpoint's failure, not the caller's choice.
- ``LLMConfigError`` (400/401/403 …) is not a failure: the endpoint answered, so it proves the endpoint
  is reachable. It resets the failure count and a probe ending in it closes the breaker; the config
  error itself still reaches the caller (and operators) unchanged.
- A stream succeeds when it reaches ``StreamDone``; it fails when it raises ``LLMUnavailable`` (also
  after its first token). A stream the caller abandons, a call cancelled with time left or an
  unexpected exception is neutral in the closed state.
- A probe is the endpoint's one chance: a probe cancelled or abandoned before its first event, or one
  that neither finishes nor is released within ``reset_s`` (a leaked stream, a lost task), returns
  the breaker to *open* for another ``reset_s`` — it never stays half-open. A probe abandoned after
  its first event proved the endpoint answers: it closes the breaker.

Calls already in flight when the breaker opens (admitted while closed, still waiting for their first
event) are shed at once with ``CircuitOpen`` instead of each waiting out its own timeout; they do not
count again. With the Redis store this holds across processes: an opening anywhere sheds everywhere.
Background calls (memory updates) go through the same breaker: refused while open, shed on opening.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TypeVar

import structlog

from core.llm.breaker_store import BreakerStore, MemoryBreakerStore, Outcome, State, Ticket
from core.llm.budget import current_budget
from core.llm.errors import CircuitOpen, LLMConfigError, LLMUnavailable
from core.llm.types import LLM, Completion, StreamDone, StreamEvent
from core.llm.wrapper import LLMCall, WrapperLLM, closing

log = structlog.get_logger(__name__)

__all__ = ["CircuitBreakerLLM", "Outcome", "State"]
T = TypeVar("T")


class CircuitBreakerLLM(WrapperLLM):
    """Wraps an LLM with a consecutive-failure circuit breaker; implements the LLM port itself.

    Args:
        inner: the LLM to protect (normally an ``OpenAIChatClient``).
        failures: consecutive failed calls that open the circuit (for the default memory store).
        reset_s: how long the circuit stays open before one probe is admitted (memory store).
        clock: monotonic clock (tests pass a fake one; memory store).
        store: where the state lives; default: this process's memory.
    """

    def __init__(
        self,
        inner: LLM,
        *,
        failures: int = 5,
        reset_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        store: BreakerStore | None = None,
    ):
        super().__init__(inner)
        self.store: BreakerStore = store or MemoryBreakerStore(failures=failures, reset_s=reset_s, clock=clock)

    @property
    def state(self) -> State:
        """The current state, as the next caller would find it (open turns half-open after reset_s)."""
        return self.store.state

    @property
    def consecutive_failures(self) -> int:
        """Failed calls in a row since the last success."""
        return self.store.failures

    @property
    def transitions(self) -> list[tuple[str, str]]:
        """Every state change this process saw, in order."""
        return self.store.transitions

    async def around_complete(self, call: LLMCall) -> Completion:
        """Pass the call through if the circuit admits it; raise CircuitOpen otherwise."""
        ticket = await self.store.admit()
        record = _Recorder(self.store, ticket)
        try:
            result = await self._first(call.complete(self.inner), ticket, record)
        except LLMConfigError:
            await record("success")
            raise
        except LLMUnavailable:
            await record("failure")
            raise
        except BaseException:  # cancelled, or an unexpected error: recorded without awaiting
            record.soon(_unrecorded())
            raise
        await record("success")
        return result

    async def around_stream(self, call: LLMCall) -> AsyncGenerator[StreamEvent, None]:
        """Stream through the inner LLM if admitted; success is the stream reaching StreamDone."""
        ticket = await self.store.admit()
        record = _Recorder(self.store, ticket)
        first_seen = False
        try:
            events = call.stream(self.inner)
            async with closing(events):
                event = await self._first(anext(events, None), ticket, record)
                while event is not None:
                    first_seen = True
                    if isinstance(event, StreamDone):
                        await record("success")
                    yield event
                    event = await anext(events, None)
        except LLMConfigError:
            await record("success")
            raise
        except LLMUnavailable:
            await record("failure")
            raise
        finally:
            # a probe abandoned after its first event proved the endpoint answers
            probe_answered = ticket.probe is not None and first_seen and not _budget_spent()
            record.soon("success" if probe_answered else _unrecorded())

    async def aclose(self) -> None:
        """Close the inner LLM's resources and the store's."""
        await super().aclose()
        await self.store.aclose()

    async def _first(self, first: Awaitable[T], ticket: Ticket, record: _Recorder) -> T:
        """Await ``first`` (the call or its first event), shedding it if the circuit opens meanwhile."""
        if ticket.probe is not None:
            return await first
        task = asyncio.ensure_future(first)
        opened = asyncio.ensure_future(self.store.opened_since(ticket))
        try:
            await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            opened.cancel()
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if task.cancelled() and opened.done() and not opened.cancelled():
            record.soon("shed")
            log.info("llm_call_shed", reason="circuit_opened")
            raise CircuitOpen("LLM circuit opened while this call was waiting")
        return task.result()


class _Recorder:
    """Records one admitted call's outcome once (the first outcome wins)."""

    def __init__(self, store: BreakerStore, ticket: Ticket):
        self._store, self._ticket, self._done = store, ticket, False

    async def __call__(self, outcome: Outcome) -> None:
        if not self._done:
            self._done = True
            await self._store.record(outcome, self._ticket)

    def soon(self, outcome: Outcome) -> None:
        """Record without awaiting (from a cancelled call's or a closed stream's cleanup)."""
        if not self._done:
            self._done = True
            self._store.record_soon(outcome, self._ticket)


def _budget_spent() -> bool:
    budget = current_budget()
    return budget is not None and budget.expired()


def _unrecorded() -> Outcome:
    """The outcome of a call that ended without one: a hang when its reply's budget is spent."""
    return "failure" if _budget_spent() else "neutral"
