"""A circuit breaker around any :class:`~core.llm.types.LLM`: fail fast while the endpoint is down.

States: *closed* (calls pass; consecutive failures are counted), *open* (every call raises
:class:`~core.llm.errors.CircuitOpen` at once, for ``reset_s``), *half-open* (exactly one probe call
passes; everyone else meanwhile gets ``CircuitOpen``; the probe's outcome closes or reopens it).

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
count again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Literal, TypeVar

import structlog

from core.llm.budget import current_budget
from core.llm.errors import CircuitOpen, LLMConfigError, LLMUnavailable
from core.llm.types import LLM, Completion, Message, StreamDone, StreamEvent

log = structlog.get_logger(__name__)

State = Literal["closed", "open", "half_open"]
Outcome = Literal["success", "failure", "neutral", "shed"]
T = TypeVar("T")


class CircuitBreakerLLM:
    """Wraps an LLM with a consecutive-failure circuit breaker; implements the LLM port itself.

    Args:
        inner: the LLM to protect (normally an ``OpenAIChatClient``).
        failures: consecutive failed calls that open the circuit.
        reset_s: how long the circuit stays open before one probe is admitted.
        clock: monotonic clock (tests pass a fake one).
    """

    def __init__(
        self, inner: LLM, *, failures: int = 5, reset_s: float = 30.0, clock: Callable[[], float] = time.monotonic
    ):
        if failures < 1 or reset_s <= 0:
            raise ValueError("failures must be >= 1 and reset_s > 0")
        self._inner = inner
        self._threshold = failures
        self._reset_s = reset_s
        self._clock = clock
        self._state: State = "closed"
        self._failures = 0
        self._opened_at = 0.0
        self._probe_started: float | None = None
        self._probe: object | None = None  # the token of the probe in flight
        self._opened_signal: asyncio.Event | None = None  # set when the circuit opens; one per closed period
        self.transitions: list[tuple[str, str]] = []

    @property
    def state(self) -> State:
        """The current state, as the next caller would find it (open turns half-open after reset_s)."""
        if self._state == "open" and self._clock() - self._opened_at >= self._reset_s:
            return "half_open"
        return self._state

    @property
    def consecutive_failures(self) -> int:
        """Failed calls in a row since the last success."""
        return self._failures

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """Pass the call through if the circuit admits it; raise CircuitOpen otherwise."""
        probe = self._admit()
        record, opened = self._recorder(probe), self._signal(probe)
        try:
            result = await self._first(
                self._inner.complete(messages, tools=tools, temperature=temperature, max_tokens=max_tokens),
                opened,
                record,
            )
        except LLMConfigError:
            record("success")
            raise
        except LLMUnavailable:
            record("failure")
            raise
        else:
            record("success")
        finally:
            record(_unrecorded())  # only when nothing was recorded: cancelled, or an unexpected error
        return result

    async def stream(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        """Stream through the inner LLM if admitted; success is the stream reaching StreamDone."""
        probe = self._admit()
        record, opened = self._recorder(probe), self._signal(probe)
        first_seen = False
        try:
            events = self._inner.stream(messages, tools=tools, temperature=temperature, max_tokens=max_tokens)
            async with _closing(events):
                event = await self._first(anext(events, None), opened, record)
                while event is not None:
                    first_seen = True
                    if isinstance(event, StreamDone):
                        record("success")
                    yield event
                    event = await anext(events, None)
        except LLMConfigError:
            record("success")
            raise
        except LLMUnavailable:
            record("failure")
            raise
        finally:
            # a probe abandoned after its first event proved the endpoint answers
            record("success" if probe is not None and first_seen and not _budget_spent() else _unrecorded())

    async def aclose(self) -> None:
        """Close the inner LLM's resources, if it has any."""
        aclose = getattr(self._inner, "aclose", None)
        if aclose is not None:
            await aclose()

    # ------------------------------------------------------------------ shedding
    def _signal(self, probe: object | None) -> asyncio.Event | None:
        """The event that tells a call admitted while closed that the circuit opened (None for probes)."""
        if probe is not None:
            return None
        if self._opened_signal is None:
            self._opened_signal = asyncio.Event()
        return self._opened_signal

    async def _first(self, first: Awaitable[T], opened: asyncio.Event | None, record: Callable[[Outcome], None]) -> T:
        """Await ``first`` (the call or its first event), shedding it if the circuit opens meanwhile."""
        if opened is None:
            return await first
        task = asyncio.ensure_future(first)
        waiter = asyncio.ensure_future(opened.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if task.cancelled() and opened.is_set():
            record("shed")
            log.info("llm_call_shed", reason="circuit_opened")
            raise CircuitOpen("LLM circuit opened while this call was waiting")
        return task.result()

    # ------------------------------------------------------------------ state machine
    def _admit(self) -> object | None:
        """Admit or reject the caller now; the probe's token when the caller is the half-open probe."""
        now = self._clock()
        if self._state == "closed":
            return None
        if self._state == "open":
            if now - self._opened_at < self._reset_s:
                raise CircuitOpen(f"LLM circuit open ({self._reset_s - (now - self._opened_at):.1f}s left)")
            self._transition("half_open")
        if self._probe_started is not None:
            if now - self._probe_started < self._reset_s:
                raise CircuitOpen("LLM circuit half-open: a probe call is in flight")
            log.warning("circuit_probe_lost", after_s=round(now - self._probe_started, 1))
            self._probe_started, self._probe = None, None
            self._open()  # a lost probe is no evidence of health: wait another reset period
            raise CircuitOpen("LLM circuit reopened: the last probe was lost")
        self._probe_started, self._probe = now, object()
        return self._probe

    def _recorder(self, probe: object | None) -> Callable[[Outcome], None]:
        """A once-only outcome recorder for one admitted call."""
        done = False

        def record(outcome: Outcome) -> None:
            nonlocal done
            if not done:
                done = True
                self._record(outcome, probe)

        return record

    def _record(self, outcome: Outcome, probe: object | None) -> None:
        if probe is not None:
            if probe is not self._probe:  # presumed lost already; the breaker moved on
                return
            self._probe_started, self._probe = None, None
            if outcome in ("neutral", "shed") and self._state == "half_open":
                log.warning("circuit_probe_cancelled")
                self._open()
                return
        if outcome == "success":
            self._failures = 0
            if probe and self._state == "half_open":
                self._transition("closed")
        elif outcome == "failure":
            self._failures += 1
            if probe and self._state == "half_open":
                self._open()
            elif self._state == "closed" and self._failures >= self._threshold:
                self._open()

    def _open(self) -> None:
        self._opened_at = self._clock()
        self._transition("open")
        if self._opened_signal is not None:  # shed the calls admitted while closed
            self._opened_signal.set()
            self._opened_signal = None

    def _transition(self, to: State) -> None:
        if to != self._state:
            log.warning("circuit_state", **{"from": self._state, "to": to}, failures=self._failures)
            self.transitions.append((self._state, to))
            self._state = to


def _budget_spent() -> bool:
    budget = current_budget()
    return budget is not None and budget.expired()


def _unrecorded() -> Outcome:
    """The outcome of a call that ended without one: a hang when its reply's budget is spent."""
    return "failure" if _budget_spent() else "neutral"


@asynccontextmanager
async def _closing(events: AsyncIterator[StreamEvent]):
    """Close the inner stream when the caller stops early (so its HTTP response is released)."""
    try:
        yield events
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
