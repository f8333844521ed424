"""Test helpers for the Discord adapter: a scripted engine double and a running bot against the fake.

:class:`ScriptedEngine` stands in for ``core.service.ChatService``: each ``handle`` call takes the
next queued script (events, plus :class:`Hold` / callables to control timing) or, when none is
queued, answers ``FinalReply("echo: <text>")``. Every Incoming it receives is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.discord.client import FuziDiscordClient, make_client
from adapters.discord.settings import DiscordSettings
from core.events import FinalReply, ReplyEvent
from core.types import Incoming
from tests.engine_hooks import RecordedHooks
from tests.fakes.discord_server import FakeDiscord

SKILLS = (("teaching", "夫子教诲 (Teaching)"), ("poetry", "诗词赏析 (Poetry)"), ("debate", "经学辩论 (Debate)"))
ENGINE_COMMANDS = (
    ("start", "开始", "Start"),
    ("help", "用法", "Help"),
    ("skill", "技能", "Skill"),
    ("cancel", "停止作答", "Stop the reply in progress"),
)


@dataclass
class Hold:
    """Pause the script until the test sets ``gate`` (it records that the script got here)."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)
    reached: asyncio.Event = field(default_factory=asyncio.Event)


class ScriptedEngine(RecordedHooks):
    """Engine double: scripted event streams per call, records every Incoming."""

    def __init__(self) -> None:
        self.incomings: list[Incoming] = []
        self._scripts: deque[list[Any]] = deque()
        self.received = asyncio.Event()

    def then(self, *steps: ReplyEvent | Hold | Callable[[], Any]) -> None:
        """Queue the script for the next ``handle`` call."""
        self._scripts.append(list(steps))

    def skills(self) -> list[tuple[str, str]]:
        return list(SKILLS)

    def commands(self) -> list[tuple[str, str, str]]:
        return list(ENGINE_COMMANDS)

    async def handle(self, incoming: Incoming) -> AsyncIterator[ReplyEvent]:
        self.incomings.append(incoming)
        self.received.set()
        steps = self._scripts.popleft() if self._scripts else [FinalReply(f"echo: {incoming.text}")]
        for step in steps:
            if isinstance(step, Hold):
                step.reached.set()
                await step.gate.wait()
            elif callable(step):
                result = step()
                if asyncio.iscoroutine(result):
                    await result
            else:
                yield step


def settings_for(fake: FakeDiscord, **overrides: Any) -> DiscordSettings:
    """Settings pointing at ``fake`` with a fast edit interval; ``overrides`` win."""
    values: dict[str, Any] = {  # every field pinned: a developer's DISCORD_* environment cannot leak in
        "bot_token": "test-token",
        "api_base_url": fake.base_url,
        "gateway_url": fake.gateway_url,
        "FUZI_DISCORD_GUILD_ID": None,
        "edit_interval_s": 0.05,
        "message_content": False,
        "thread_replies": False,
        "shard_count": None,
        "shard_ids": "",
    }
    if "guild_id" in overrides:
        overrides["FUZI_DISCORD_GUILD_ID"] = overrides.pop("guild_id")
    values.update(overrides)
    return DiscordSettings(_env_file=None, **values)


@contextlib.asynccontextmanager
async def running_bot(fake: FakeDiscord, engine: ScriptedEngine, **kwargs: Any) -> AsyncIterator[FuziDiscordClient]:
    """Start the bot against ``fake``, wait until READY, close it afterwards."""
    settings_overrides = {k: kwargs.pop(k) for k in list(kwargs) if k in DiscordSettings.model_fields}
    client = make_client(settings_for(fake, **settings_overrides), engine, guild_ready_timeout=0.05, **kwargs)
    task = asyncio.create_task(client.start_with_endpoints("test-token"))
    try:
        waiter = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait({waiter, task}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            task.result()  # re-raise the startup failure
        assert waiter in done, "bot did not become ready"
        yield client
    finally:
        await client.close()
        await asyncio.wait_for(task, 10)
