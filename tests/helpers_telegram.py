"""Test helpers for the adapters: a virtual clock and a scripted engine double.

``FakeTime`` gives ``clock``/``sleep`` to inject into budgets and streaming replies: sleeping never
takes real time; :meth:`FakeTime.run` drives a coroutine, jumping the clock to the next sleeper's
deadline whenever every task is waiting.

``ScriptedEngine`` stands in for ``core.service.ChatService``: each test queues the events (and
pauses between them) that the next ``handle`` call yields, and reads back what the engine received.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from core.events import Notice, ReplyEvent
from core.types import Incoming
from tests.engine_hooks import RecordedHooks


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


Step = ReplyEvent | float | Callable[[], Any]


@dataclass
class Script:
    """What one ``handle`` call yields: events, pauses (float seconds) and callables to run."""

    steps: list[Step] = field(default_factory=list)


class ScriptedEngine(RecordedHooks):
    """An engine double with the ChatService surface: handle, commands, skills.

    Args:
        sleep: how pauses in scripts wait (``asyncio.sleep`` or a FakeTime's sleep).
        default: events for calls with nothing queued (a one-line notice by default).
    """

    def __init__(self, sleep=asyncio.sleep, default: Iterable[ReplyEvent] | None = None) -> None:
        self.sleep = sleep
        self.received: list[Incoming] = []
        self._scripts: list[list[Step]] = []
        self._by_text: dict[str, list[Step]] = {}
        self._default = list(default) if default is not None else None
        self._running: dict[str, asyncio.Event] = {}  # account -> cancel flag of the running reply
        self.finished: list[str] = []  # trace ids whose generator ran to its end

    def queue(self, *steps: Step) -> None:
        """The next ``handle`` call (of any text) yields these steps."""
        self._scripts.append(list(steps))

    def on_text(self, text: str, *steps: Step) -> None:
        """Calls whose ``incoming.text`` equals ``text`` yield these steps (checked first)."""
        self._by_text[text] = list(steps)

    def commands(self) -> list[tuple[str, str, str]]:
        return [
            ("start", "开始", "Start"),
            ("help", "帮助", "Help"),
            ("ask", "提问", "Ask a question"),
            ("skill", "选择技能", "Choose a skill"),
            ("cancel", "停止当前回答", "Stop the current reply"),
        ]

    def skills(self) -> list[tuple[str, str]]:
        return [("confucius", "孔子"), ("poetry", "诗经")]

    async def handle(self, incoming: Incoming) -> AsyncIterator[ReplyEvent]:
        self.received.append(incoming)
        if not incoming.addressed:  # group chatter: context only, never answered
            return
        if incoming.command == "cancel":
            flag = self._running.get(incoming.account)
            if flag is not None:
                flag.set()
            yield Notice("已停止当前回答。" if flag else "没有正在进行的回答。", reason="command")
            return
        if self._running.get(incoming.account) is not None:
            yield Notice("上一条还在回答中，请稍候。", reason="busy")
            return
        steps = self._steps_for(incoming)
        flag = self._running[incoming.account] = asyncio.Event()
        try:
            for step in steps:
                if flag.is_set():  # like the real engine: a cancelled reply's stream just ends
                    return
                if isinstance(step, (int, float)):
                    await self._pause(step, flag)
                elif callable(step):
                    step()
                else:
                    yield step
            if flag.is_set():
                return
        finally:
            self._running.pop(incoming.account, None)
            self.finished.append(incoming.trace_id)

    async def _pause(self, seconds: float, flag: asyncio.Event) -> None:
        waiter = asyncio.ensure_future(flag.wait())
        sleeper = asyncio.ensure_future(self.sleep(seconds))
        try:
            await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            sleeper.cancel()

    def _steps_for(self, incoming: Incoming) -> list[Step]:
        if incoming.text in self._by_text:
            return self._by_text[incoming.text]
        if self._scripts:
            return self._scripts.pop(0)
        if self._default is not None:
            return list(self._default)
        return [Notice(f"echo: {incoming.command or ''} {incoming.text}".strip(), reason="command")]


# ---------------------------------------------------------------------- Telegram bot under test


@contextlib.asynccontextmanager
async def running_bot(fake, engine, *, recorder=None, seen=None, limiter="priority", **overrides):
    """Start the real PTB application against ``fake`` (a FakeTelegram); stop it afterwards."""
    from adapters.telegram.app import build_application, start, stop
    from adapters.telegram.settings import TelegramSettings
    from tests.fakes.telegram_api import TOKEN

    values = dict(
        bot_token=TOKEN,
        api_base_url=fake.base_url,
        edit_interval_private_s=0.2,
        edit_interval_group_s=0.4,
        poll_timeout_s=1,
    )
    values.update(overrides)
    settings = TelegramSettings(**values)
    app = build_application(settings, engine, recorder=recorder, seen=seen, limiter=limiter)
    await start(app, settings)
    try:
        yield app
    finally:
        await stop(app)
