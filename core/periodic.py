"""A process's background round: a coroutine run every few seconds in a task of its own.

The reply watch (core/engine/watch.py) and the inbox (core/inbox) each run one; the round itself
handles its own errors, so the loop only sleeps, runs it, and stops when closed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable


class Periodic:
    """Runs ``tick`` every ``every()`` seconds once started, until ``aclose`` (both idempotent).

    Args:
        name: the task's name (shown in task dumps).
        every: seconds between the end of one round and the next, read before each sleep.
        tick: one round.
    """

    def __init__(self, name: str, every: Callable[[], float], tick: Callable[[], Awaitable[object]]) -> None:
        self._name, self._every, self._tick = name, every, tick
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name=self._name)

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self._every())
            await self._tick()
