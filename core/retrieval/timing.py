"""The time budget of one search and the inline-or-thread choice for in-memory scans."""

from __future__ import annotations

import asyncio
import time


async def maybe_thread(inline: bool, fn, *args):
    """Run `fn` here when it is sub-millisecond CPU work (an in-memory scan of a small corpus: a
    thread hop costs more than that on two busy cores), else in a worker thread."""
    if inline:
        return fn(*args)
    return await asyncio.to_thread(fn, *args)


def ms(started: float) -> float:
    """Milliseconds since `started` (a `time.perf_counter()` reading), rounded to the microsecond."""
    return round((time.perf_counter() - started) * 1000, 3)


class Clock:
    """Remaining time of one search's budget."""

    def __init__(self, budget_s: float):
        self._start = time.perf_counter()
        self._budget = budget_s

    def remaining(self) -> float:
        return max(0.0, self._budget - (time.perf_counter() - self._start))

    def elapsed_ms(self) -> float:
        return ms(self._start)
