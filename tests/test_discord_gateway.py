"""The Discord client against the fake gateway: READY, heartbeats, command sync, reconnects."""

from __future__ import annotations

import asyncio

import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route

from adapters.discord.client import run_discord
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.engine import SKILLS, ScriptedEngine
from tests.helpers_discord import running_bot, settings_for


async def test_ready_and_heartbeats(fake_discord: FakeDiscord):
    async with running_bot(fake_discord, ScriptedEngine()) as client:
        await fake_discord.wait_until(lambda: fake_discord.gateway.heartbeats >= 3, timeout=5)
        assert client.user is not None and str(client.user.id) == fake_discord.app_id
        assert [str(g.id) for g in client.guilds] == [fake_discord.guild_id]
        identify = fake_discord.gateway.identifies[0]
        assert identify["token"] == "test-token"
        assert not identify["intents"] & (1 << 15), "message-content intent must be off by default"
        assert client.latency < 5


async def test_commands_sync_globally(fake_discord: FakeDiscord):
    async with running_bot(fake_discord, ScriptedEngine()):
        (put,) = fake_discord.calls("PUT", r"/commands$")
    assert put.path == f"/applications/{fake_discord.app_id}/commands"
    by_name = {c["name"]: c for c in put.body}
    assert set(by_name) == {
        "ask",
        "skill",
        "remember",
        "memories",
        "forget",
        "profile",
        "reset",
        "link",
        "help",
        "cancel",
        "settings",
        "passage",
    }
    (question,) = by_name["ask"]["options"]
    assert question["name"] == "question" and question["required"] is True
    assert by_name["cancel"]["description"] == "停止作答 · Stop the reply in progress"
    (skill,) = by_name["skill"]["options"]
    assert [(c["value"], c["name"]) for c in skill["choices"]] == list(SKILLS)


async def test_commands_sync_to_dev_guild(fake_discord: FakeDiscord):
    async with running_bot(fake_discord, ScriptedEngine(), guild_id=int(fake_discord.guild_id)):
        (put,) = fake_discord.calls("PUT", r"/commands$")
    assert put.path == f"/applications/{fake_discord.app_id}/guilds/{fake_discord.guild_id}/commands"
    assert len(put.body) == 12


async def test_reconnects_and_resumes_after_gateway_drop(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine):
        await fake_discord.drop_gateway(code=4000)
        await fake_discord.wait_until(lambda: fake_discord.gateway.resumes, timeout=10)
        assert fake_discord.gateway.connections == 2
        assert fake_discord.gateway.resumes[0]["session_id"] == "session-1"
        await fake_discord.user_message("还在吗", dm=True)
        (sent,) = await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/messages"))
    assert sent.body["content"] == "echo: 还在吗"


async def test_run_discord_uses_the_configured_endpoints_and_restores_them(fake_discord: FakeDiscord):
    original_base, original_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    settings = settings_for(fake_discord, api_base_url=fake_discord.base_url.removesuffix("/v10"))
    task = asyncio.create_task(run_discord(settings, ScriptedEngine()))
    await fake_discord.wait_until(lambda: fake_discord.gateway.identifies, timeout=10)
    assert Route.BASE == fake_discord.base_url  # "/v10" added to a base without a version
    await fake_discord.user_message("在", dm=True)
    await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/messages"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY) == (original_base, original_gateway)
    assert original_base.startswith("https://discord.com/api/v")
