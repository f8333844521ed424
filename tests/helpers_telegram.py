"""Test helpers for the Telegram adapter: a virtual clock and the real PTB bot against the fake.

``FakeTime`` gives ``clock``/``sleep`` to inject into budgets and streaming replies: sleeping never
takes real time; :meth:`FakeTime.run` drives a coroutine, jumping the clock to the next sleeper's
deadline whenever every task is waiting. The engine double is ``tests.fakes.engine.ScriptedEngine``.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from typing import Any


class FakeTime:
    """A virtual monotonic clock with a sleep that only advances when everything else waits."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self._sleepers: list[tuple[float, int, asyncio.Future]] = []
        self._seq = itertools.count()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        fut = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(0.0, seconds), next(self._seq), fut))
        await fut

    async def _settle(self) -> None:
        for _ in range(50):
            await asyncio.sleep(0)

    async def run(self, coro, *, limit: float = 3600.0) -> Any:
        """Run ``coro`` to completion, advancing virtual time when all tasks are idle."""
        task = asyncio.ensure_future(coro)
        end = self.now + limit
        while not task.done():
            await self._settle()
            if task.done():
                break
            self._sleepers = [s for s in self._sleepers if not s[2].done()]
            heapq.heapify(self._sleepers)
            if not self._sleepers:
                task.cancel()
                raise RuntimeError("deadlock: every task waits and nothing sleeps")
            deadline, _, fut = heapq.heappop(self._sleepers)
            if deadline > end:
                task.cancel()
                raise TimeoutError("virtual time limit reached")
            self.now = max(self.now, deadline)
            fut.set_result(None)
        return task.result()


# ---------------------------------------------------------------------- Telegram bot under test


@contextlib.asynccontextmanager
async def running_bot(
    fake,
    engine,
    *,
    recorder=None,
    seen=None,
    limiter="priority",
    requests_per_s=None,
    quizzes=None,
    reading=None,
    **overrides,
):
    """Start the real PTB application against ``fake`` (a FakeTelegram); stop it afterwards."""
    from adapters.telegram.app import build_application, start, stop
    from adapters.telegram.settings import TelegramSettings
    from tests.fakes.telegram_api import TOKEN

    unknown = set(overrides) - set(TelegramSettings.model_fields)
    if unknown:  # the settings ignore unknown keys: a retired knob passed here would test nothing
        raise TypeError(f"not TelegramSettings fields: {sorted(unknown)} (a constant now? docs/settings.md)")
    values = dict(
        bot_token=TOKEN,
        api_base_url=fake.base_url,
        edit_interval_private_s=0.2,
        edit_interval_group_s=0.4,
        poll_timeout_s=1,
    )
    values.update(overrides)
    settings = TelegramSettings(**values)
    rate = {} if requests_per_s is None else {"requests_per_s": requests_per_s}
    app = build_application(
        settings, engine, recorder=recorder, seen=seen, limiter=limiter, quizzes=quizzes, reading=reading, **rate
    )
    await start(app, settings)
    try:
        yield app
    finally:
        await stop(app)
