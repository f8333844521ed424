"""A circuit breaker around any :class:`~core.llm.types.LLM`: fail fast while the endpoint is down.

States: *closed* (calls pass; consecutive failures are counted), *open* (every call raises
:class:`~core.llm.errors.CircuitOpen` at once, for ``reset_s``), *half-open* (exactly one probe call
passes; everyone else meanwhile gets ``CircuitOpen``; the probe's outcome closes or reopens it).

What counts:
- A *failure* is a call (all its retry attempts) ending in ``LLMUnavailable``.
- ``LLMConfigError`` (400/401/403 …) is not a failure: the endpoint answered, so it proves the endpoint
  is reachable. It resets the failure count and a probe ending in it closes the breaker; the config
  error itself still reaches the caller (and operators) unchanged.
- A stream succeeds when it reaches ``StreamDone``; it fails when it raises ``LLMUnavailable`` (also
  after its first token). A stream the caller abandons, a cancelled call or an unexpected exception is
  neutral: no state change, and a probe slot it held is released for the next caller.
- A probe that neither finishes nor is released within ``reset_s`` (a leaked stream) is presumed lost,
  and the next caller becomes the new probe.
"""

from __future__ import annotations

import time
from contextlib import asynccontextmanager
from typing import AsyncIterator, Callable, Literal

import structlog

from core.llm.errors import CircuitOpen, LLMConfigError, LLMUnavailable
from core.llm.types import LLM, Completion, Message, StreamDone, StreamEvent

log = structlog.get_logger(__name__)

State = Literal["closed", "open", "half_open"]
Outcome = Literal["success", "failure", "neutral"]


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
        record = self._recorder(self._admit())
        try:
            result = await self._inner.complete(
                messages, tools=tools, temperature=temperature, max_tokens=max_tokens
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
            record("neutral")  # only when nothing was recorded: cancelled, or an unexpected error
        return result

    async def stream(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Stream through the inner LLM if admitted; success is the stream reaching StreamDone."""
        record = self._recorder(self._admit())
        try:
            events = self._inner.stream(messages, tools=tools, temperature=temperature, max_tokens=max_tokens)
            async with _closing(events):
                async for event in events:
                    if isinstance(event, StreamDone):
                        record("success")
                    yield event
        except LLMConfigError:
            record("success")
            raise
        except LLMUnavailable:
            record("failure")
            raise
        finally:
            record("neutral")

    async def aclose(self) -> None:
        """Close the inner LLM's resources, if it has any."""
        aclose = getattr(self._inner, "aclose", None)
        if aclose is not None:
            await aclose()

    # ------------------------------------------------------------------ state machine
    def _admit(self) -> bool:
        """Admit or reject the caller now; True when the caller is the half-open probe."""
        now = self._clock()
        if self._state == "closed":
            return False
        if self._state == "open":
            if now - self._opened_at < self._reset_s:
                raise CircuitOpen(f"LLM circuit open ({self._reset_s - (now - self._opened_at):.1f}s left)")
            self._transition("half_open")
        if self._probe_started is not None and now - self._probe_started < self._reset_s:
            raise CircuitOpen("LLM circuit half-open: a probe call is in flight")
        self._probe_started = now
        return True

    def _recorder(self, probe: bool) -> Callable[[Outcome], None]:
        """A once-only outcome recorder for one admitted call."""
        done = False

        def record(outcome: Outcome) -> None:
            nonlocal done
            if not done:
                done = True
                self._record(outcome, probe)

        return record

    def _record(self, outcome: Outcome, probe: bool) -> None:
        if probe:
            self._probe_started = None
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

    def _transition(self, to: State) -> None:
        if to != self._state:
            log.warning("circuit_state", **{"from": self._state, "to": to}, failures=self._failures)
            self._state = to


@asynccontextmanager
async def _closing(events: AsyncIterator[StreamEvent]):
    """Close the inner stream when the caller stops early (so its HTTP response is released)."""
    try:
        yield events
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
