"""The one scripted engine of the tests: an `Engine` (core/ports.py) whose replies each test writes.

Each ``handle`` call plays one script, taken in this order: the script for its exact text
(:meth:`ScriptedEngine.on_text`), else the next queued one (:meth:`ScriptedEngine.queue`), else the
default (``FinalReply("echo: <text>")`` unless given). A script's steps are events (yielded),
pauses (a float: seconds, slept with ``sleep``), :class:`Hold` (wait until the test opens its gate)
and callables (run, awaited when they return an awaitable; one that raises makes the stream fail).

Like the real engine (core/engine/service.py): an unaddressed message is recorded and answered with
nothing; one reply runs at a time per account — a second message meanwhile gets a "busy" notice,
and /cancel stops the running one (its stream simply ends). Everything the adapter tells the engine
is recorded: ``received`` (every Incoming; ``arrived`` is set on each), ``finished`` (trace ids
whose stream ran to its end), ``shown``, ``deliveries``, ``feedback``, ``admin_checks``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from core.engine.lookup import NOTHING, LookupResult
from core.events import FinalReply, Notice, ReplyEvent
from core.shown_in import ShownIn
from core.types import Incoming

SKILLS = (("teaching", "夫子教诲 (Teaching)"), ("poetry", "诗词赏析 (Poetry)"), ("debate", "经学辩论 (Debate)"))
COMMANDS = (
    ("start", "开始", "Start"),
    ("help", "帮助", "Help"),
    ("ask", "提问", "Ask a question"),
    ("skill", "选择技能", "Choose a skill"),
    ("cancel", "停止作答", "Stop the reply in progress"),
)
STOPPED = "已停止当前回答。"
NOTHING_RUNNING = "没有正在进行的回答。"
BUSY = "上一条还在回答中，请稍候。"


@dataclass
class Hold:
    """Pause the script until the test sets ``gate`` (it records that the script got here)."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)
    reached: asyncio.Event = field(default_factory=asyncio.Event)


Step = ReplyEvent | float | Hold | Callable[[], Any]


def echo(incoming: Incoming) -> list[Step]:
    """The default script: the message's text back as a final reply."""
    return [FinalReply(f"echo: {incoming.text}")]


class ScriptedEngine:
    """An engine double with the whole `Engine` port; scripted replies, every call recorded.

    Args:
        sleep: how pauses in scripts wait (``asyncio.sleep``, or a FakeTime's sleep).
        default: the script for calls with nothing queued: steps, or a function of the Incoming.
        interrupted: where the replies a "crash" cut short are shown, handed out by
            ``take_interrupted`` (each once, per platform).
    """

    def __init__(
        self,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        default: Iterable[Step] | Callable[[Incoming], list[Step]] = echo,
        interrupted: Iterable[ShownIn] = (),
    ) -> None:
        self.sleep = sleep
        self._default = default if callable(default) else list(default)
        self._scripts: list[list[Step]] = []
        self._by_text: dict[str, list[Step]] = {}
        self._running: dict[str, asyncio.Event] = {}  # account -> cancel flag of the running reply
        self.received: list[Incoming] = []
        self.arrived = asyncio.Event()
        self.finished: list[str] = []
        self.shown: list[tuple[str, ShownIn]] = []
        self.parts: list[tuple[str, ShownIn, int]] = []  # messages of answers noted for reactions only
        self.deliveries: list[tuple[str, bool]] = []
        self.feedback: list[tuple[str, str, str]] = []
        self.admin_checks: dict[str, Any] = {}
        self.interrupted = list(interrupted)
        self.model_names: list[str] = []  # what `models()` offers (/settings model choices)

    # ------------------------------------------------------------------ scripting
    def queue(self, *steps: Step) -> None:
        """The next ``handle`` call (of any text) plays these steps."""
        self._scripts.append(list(steps))

    def on_text(self, text: str, *steps: Step) -> None:
        """Calls whose ``incoming.text`` equals ``text`` play these steps (checked first, every time)."""
        self._by_text[text] = list(steps)

    # ------------------------------------------------------------------ the Engine port
    def commands(self) -> list[tuple[str, str, str]]:
        return list(COMMANDS)

    def skills(self) -> list[tuple[str, str]]:
        return list(SKILLS)

    def models(self) -> list[str]:
        return list(self.model_names)

    async def handle(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]:
        self.received.append(incoming)
        self.arrived.set()
        if not incoming.addressed:  # group chatter: context only, never answered
            return
        running = self._running.get(incoming.account)
        if running is not None:
            if incoming.command == "cancel":
                running.set()
                yield Notice(STOPPED, reason="command")
            else:
                yield Notice(BUSY, reason="busy")
            return
        steps = self._steps_for(incoming)
        flag = self._running[incoming.account] = asyncio.Event()
        try:
            for step in steps:
                if flag.is_set():  # like the real engine: a cancelled reply's stream just ends
                    return
                if isinstance(step, Hold):
                    step.reached.set()
                    await _first(step.gate.wait(), flag)
                elif isinstance(step, int | float):
                    await _first(self.sleep(step), flag)
                elif callable(step):
                    result = step()
                    if inspect.isawaitable(result):
                        await result
                else:
                    yield step
        finally:
            self._running.pop(incoming.account, None)
            self.finished.append(incoming.trace_id)

    async def record_shown(self, trace_id: str, where: ShownIn, part: int | None = None) -> bool:
        if part is not None:
            self.parts.append((trace_id, where, part))
        else:
            self.shown.append((trace_id, where))
        return True

    async def record_delivery(self, trace_id: str, delivered: bool) -> None:
        self.deliveries.append((trace_id, delivered))

    async def record_feedback(
        self, platform: str, account: str, reaction: str, *, where: ShownIn | None = None, trace_id: str | None = None
    ) -> str:
        self.feedback.append((platform, account, reaction))
        return "ignored"

    def take_interrupted(self, platform: str) -> list[ShownIn]:
        mine = [w for w in self.interrupted if w.platform == platform]
        self.interrupted = [w for w in self.interrupted if w not in mine]
        return mine

    async def look_up(self, platform: str, user_id: str, query: str, k: int = 10) -> LookupResult:
        return LookupResult(hint=NOTHING)

    def register_admin_check(self, platform: str, check: Any) -> None:
        self.admin_checks[platform] = check

    # ------------------------------------------------------------------ internals
    def _steps_for(self, incoming: Incoming) -> list[Step]:
        if incoming.text in self._by_text:
            return self._by_text[incoming.text]
        if self._scripts:
            return self._scripts.pop(0)
        if incoming.command == "cancel":  # nothing running, nothing scripted
            return [Notice(NOTHING_RUNNING, reason="command")]
        return self._default(incoming) if callable(self._default) else list(self._default)


async def _first(wait: Awaitable[Any], flag: asyncio.Event) -> None:
    """Wait for `wait`, or until the reply is cancelled (`flag`), whichever comes first."""
    waiter = asyncio.ensure_future(flag.wait())
    other = asyncio.ensure_future(wait)
    try:
        await asyncio.wait({waiter, other}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        other.cancel()
