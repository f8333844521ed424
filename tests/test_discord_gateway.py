"""The Discord client against the fake gateway: READY, heartbeats, command sync, reconnects."""

from __future__ import annotations

from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.helpers_discord import SKILLS, ScriptedEngine, running_bot


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
    assert set(by_name) == {"ask", "skill", "remember", "memories", "forget", "profile", "reset", "link", "help", "cancel"}
    (question,) = by_name["ask"]["options"]
    assert question["name"] == "question" and question["required"] is True
    assert by_name["cancel"]["description"] == "停止作答 · Stop the reply in progress"
    (skill,) = by_name["skill"]["options"]
    assert [(c["value"], c["name"]) for c in skill["choices"]] == list(SKILLS)


async def test_commands_sync_to_dev_guild(fake_discord: FakeDiscord):
    async with running_bot(fake_discord, ScriptedEngine(), guild_id=int(fake_discord.guild_id)):
        (put,) = fake_discord.calls("PUT", r"/commands$")
    assert put.path == f"/applications/{fake_discord.app_id}/guilds/{fake_discord.guild_id}/commands"
    assert len(put.body) == 10


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
