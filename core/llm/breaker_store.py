"""Where the circuit breaker keeps its state: the store contract and the in-memory store.

The policy (what counts as a failure, shedding, the probe's rules) is
:class:`core.llm.breaker.CircuitBreakerLLM`; a store owns the state machine's *transitions*:

- ``admit()``: closed → pass; open → :class:`CircuitOpen` until ``reset_s`` passed, then half-open
  and the caller is the one probe; half-open with a probe in flight → ``CircuitOpen``; a probe
  older than ``reset_s`` is presumed lost and the circuit opens again (never stuck half-open).
- ``record(outcome, ticket)``: success resets the count and a probe's success closes it; failure
  counts and opens at the threshold (a failed probe opens it at once); a probe cancelled or
  abandoned before its first event (``neutral``/``shed``) opens it again. A probe already presumed
  lost records nothing.
- Every opening increments a *generation*; ``opened_since(ticket)`` returns once the generation
  passed the ticket's: a call admitted at generation ``g`` is shed when that happens.

:class:`MemoryBreakerStore` is the reference implementation (one process);
:class:`core.llm.breaker_redis.RedisBreakerStore` runs the same transitions in Lua on Redis' clock
and tells every process about an opening (tests/test_breaker_shared.py runs one contract on both).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

import structlog

from core.llm.errors import CircuitOpen

log = structlog.get_logger(__name__)

State = Literal["closed", "open", "half_open"]
STATES: tuple[State, ...] = ("closed", "open", "half_open")
Outcome = Literal["success", "failure", "neutral", "shed"]


@dataclass(frozen=True)
class Ticket:
    """One admitted call.

    Attributes:
        probe: the probe's id when this call is the half-open probe, else None.
        generation: openings seen at admission; the call is shed when the store passes it.
        local: admitted by a fallback store (Redis unreachable): recorded there too.
    """

    probe: str | None
    generation: int
    local: bool = False


class BreakerStore(Protocol):
    """The breaker's state and transitions (see the module docstring)."""

    transitions: list[tuple[str, str]]

    @property
    def state(self) -> State: ...
    @property
    def failures(self) -> int: ...
    async def admit(self) -> Ticket: ...
    async def record(self, outcome: Outcome, ticket: Ticket) -> None: ...
    def record_soon(self, outcome: Outcome, ticket: Ticket) -> None: ...
    async def opened_since(self, ticket: Ticket) -> None: ...
    async def aclose(self) -> None: ...


class Openings:
    """The generation counter and the waiters for the next opening (one per store)."""

    def __init__(self) -> None:
        self.generation = 0
        self._event: asyncio.Event | None = None

    def advance(self, generation: int) -> None:
        if generation > self.generation:
            self.generation = generation
            if self._event is not None:
                self._event.set()
                self._event = None

    async def after(self, generation: int) -> None:
        while self.generation <= generation:
            if self._event is None:
                self._event = asyncio.Event()
            await self._event.wait()


class MemoryBreakerStore:
    """The breaker's state in this process.

    Args:
        failures: consecutive failed calls that open the circuit.
        reset_s: how long the circuit stays open before one probe is admitted.
        clock: monotonic clock (tests pass a fake one).
    """

    def __init__(self, *, failures: int, reset_s: float, clock: Callable[[], float] = time.monotonic):
        if failures < 1 or reset_s <= 0:
            raise ValueError("failures must be >= 1 and reset_s > 0")
        self._threshold, self._reset_s, self._clock = failures, reset_s, clock
        self._state: State = "closed"
        self._failures = 0
        self._opened_at = 0.0
        self._probe: str | None = None
        self._probe_started = 0.0
        self._ids = itertools.count(1)
        self.openings = Openings()
        self.transitions: list[tuple[str, str]] = []

    @property
    def state(self) -> State:
        """As the next caller would find it (open turns half-open after reset_s)."""
        if self._state == "open" and self._clock() - self._opened_at >= self._reset_s:
            return "half_open"
        return self._state

    @property
    def failures(self) -> int:
        return self._failures

    async def admit(self) -> Ticket:
        return self.admit_now()

    def admit_now(self) -> Ticket:
        now = self._clock()
        if self._state == "closed":
            return Ticket(None, self.openings.generation)
        if self._state == "open":
            if now - self._opened_at < self._reset_s:
                raise CircuitOpen(f"LLM circuit open ({self._reset_s - (now - self._opened_at):.1f}s left)")
            self._transition("half_open")
        if self._probe is not None:
            if now - self._probe_started < self._reset_s:
                raise CircuitOpen("LLM circuit half-open: a probe call is in flight")
            log.warning("circuit_probe_lost", after_s=round(now - self._probe_started, 1))
            self._probe = None
            self._open()  # a lost probe is no evidence of health: wait another reset period
            raise CircuitOpen("LLM circuit reopened: the last probe was lost")
        self._probe, self._probe_started = f"p{next(self._ids)}", now
        return Ticket(self._probe, self.openings.generation)

    async def record(self, outcome: Outcome, ticket: Ticket) -> None:
        self.record_now(outcome, ticket)

    def record_soon(self, outcome: Outcome, ticket: Ticket) -> None:
        self.record_now(outcome, ticket)

    def record_now(self, outcome: Outcome, ticket: Ticket) -> None:
        probe = ticket.probe is not None
        if probe:
            if ticket.probe != self._probe:  # presumed lost already; the breaker moved on
                return
            self._probe = None
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
            if (probe and self._state == "half_open") or (
                self._state == "closed" and self._failures >= self._threshold
            ):
                self._open()

    async def opened_since(self, ticket: Ticket) -> None:
        await self.openings.after(ticket.generation)

    async def aclose(self) -> None:
        return None

    def _open(self) -> None:
        self._opened_at = self._clock()
        self._transition("open")
        self.openings.advance(self.openings.generation + 1)

    def _transition(self, to: State) -> None:
        if to != self._state:
            log.warning("circuit_state", **{"from": self._state, "to": to}, failures=self._failures)
            self.transitions.append((self._state, to))
            self._state = to
