"""Test helpers for the Discord adapter: settings for the fake and a running bot against it.

The engine double is ``tests.fakes.engine.ScriptedEngine``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from adapters.discord.client import FuziDiscordClient, make_client
from adapters.discord.settings import DiscordSettings
from core.ports import Engine
from tests.fakes.discord_server import FakeDiscord


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
async def running_bot(fake: FakeDiscord, engine: Engine, **kwargs: Any) -> AsyncIterator[FuziDiscordClient]:
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
