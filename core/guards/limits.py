"""Per-person and per-group rate limits behind a small interface.

`RateLimiter` is the port; `InMemoryRateLimiter` is the single-process implementation (sliding
windows kept as deques of timestamps: every timestamp is appended once and popped once, so each
check is O(1) amortised). A shared backend implements the same port for many processes.
One reply in flight per person is not a limit here: `core.engine.admission.RunningReplies` owns that rule.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

Clock = Callable[[], float]

MINUTE_S = 60.0
DAY_S = 86_400.0


@dataclass(frozen=True)
class Quota:
    """Limits for one person (and the group they speak in).

    Attributes:
        per_minute: answers per person in any 60 s window.
        per_day: answers per person in any 24 h window.
        group_per_minute: answers per group chat in any 60 s window; None for no group limit.
    """

    per_minute: int = 15
    per_day: int = 150
    group_per_minute: int | None = 30


@dataclass(frozen=True)
class LimitDecision:
    """Outcome of `RateLimiter.acquire`.

    Attributes:
        allowed: True when the request was admitted and counted.
        reason: which limit said no: "per_minute", "per_day" or "group_per_minute".
        retry_after_s: seconds until the request could succeed (0 when allowed).
    """

    allowed: bool
    reason: str | None = None
    retry_after_s: float = 0.0


class RateLimiter(Protocol):
    """Counts admitted requests per person and per group and says no past the quota."""

    async def acquire(self, person_key: str, group_key: str | None) -> LimitDecision:
        """Atomically check every limit and, when all pass, count the request."""
        ...


class SlidingWindow:
    """Timestamps of events per key within the last `window_s` seconds."""

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self._events: dict[str, deque[float]] = {}

    def _prune(self, key: str, now: float) -> deque[float] | None:
        events = self._events.get(key)
        if events is None:
            return None
        horizon = now - self.window_s
        while events and events[0] <= horizon:
            events.popleft()
        if not events:
            del self._events[key]
            return None
        return events

    def retry_after(self, key: str, limit: int, now: float) -> float | None:
        """Seconds until one more event fits under `limit`; None when it fits now."""
        events = self._prune(key, now)
        if events is None or len(events) < limit:
            return None
        # The event that must expire is the one `limit` places from the newest.
        oldest_blocking = events[len(events) - limit]
        return max(oldest_blocking + self.window_s - now, 0.0)

    def add(self, key: str, now: float) -> None:
        self._events.setdefault(key, deque()).append(now)

    def sweep(self, now: float) -> None:
        """Drop keys whose events have all expired (keeps memory bounded by active keys)."""
        for key in list(self._events):
            self._prune(key, now)

    def __len__(self) -> int:
        return len(self._events)


class InMemoryRateLimiter:
    """`RateLimiter` for one process and one event loop (no locks: `acquire` never awaits).

    Args:
        quota: the limits.
        clock: monotonic seconds; tests pass a controllable one.
    """

    def __init__(self, quota: Quota, clock: Clock = time.monotonic) -> None:
        self.quota = quota
        self._clock = clock
        self._minute = SlidingWindow(MINUTE_S)
        self._day = SlidingWindow(DAY_S)
        self._group = SlidingWindow(MINUTE_S)
        self._ops = 0

    async def acquire(self, person_key: str, group_key: str | None) -> LimitDecision:
        """See `RateLimiter.acquire`; no await inside, so it is atomic on the event loop."""
        now = self._clock()
        self._maybe_sweep(now)
        decision = self._check(person_key, group_key, now)
        if decision.allowed:
            self._minute.add(person_key, now)
            self._day.add(person_key, now)
            if group_key is not None and self.quota.group_per_minute is not None:
                self._group.add(group_key, now)
        return decision

    def _check(self, person_key: str, group_key: str | None, now: float) -> LimitDecision:
        q = self.quota
        waits: list[tuple[float, str]] = []
        for window, key, limit, reason in (
            (self._day, person_key, q.per_day, "per_day"),
            (self._minute, person_key, q.per_minute, "per_minute"),
            (self._group, group_key, q.group_per_minute, "group_per_minute"),
        ):
            if key is None or limit is None:
                continue
            wait = window.retry_after(key, limit, now)
            if wait is not None:
                waits.append((wait, reason))
        if not waits:
            return LimitDecision(True)
        wait, reason = max(waits)
        return LimitDecision(False, reason, wait)

    def _maybe_sweep(self, now: float) -> None:
        """Sweep idle keys every max(1024, live keys) operations: O(1) amortised per check."""
        self._ops += 1
        live = len(self._minute) + len(self._day) + len(self._group)
        if self._ops >= max(1024, live):
            self._ops = 0
            for window in (self._minute, self._day, self._group):
                window.sweep(now)
