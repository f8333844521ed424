"""Discord split over processes: each identifies as its own shard (or several, AutoShardedClient); only shard
0 syncs slash commands; two processes connected as one shard answer each message once."""

from __future__ import annotations

import asyncio

import discord
import pytest

from adapters.discord.settings import DiscordSettings
from core.inbox.seen import InMemorySeen
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.engine import ScriptedEngine
from tests.helpers_discord import running_bot


def command_syncs(fake: FakeDiscord) -> list:
    return [r for r in fake.requests if r.method == "PUT" and r.path.endswith("/commands")]


async def test_shard_one_identifies_as_such_and_leaves_the_sync_to_shard_zero(fake_discord: FakeDiscord):
    async with running_bot(fake_discord, ScriptedEngine(), shard_count=2, shard_ids="1") as client:
        assert client.shard_id == 1
    assert fake_discord.gateway.identifies[-1]["shard"] == [1, 2]
    assert command_syncs(fake_discord) == []


async def test_shard_zero_syncs_the_commands(fake_discord: FakeDiscord):
    async with running_bot(fake_discord, ScriptedEngine(), shard_count=2, shard_ids="0"):
        pass
    assert fake_discord.gateway.identifies[-1]["shard"] == [0, 2]
    assert len(command_syncs(fake_discord)) == 1


@pytest.mark.parametrize(
    "values, message",
    [
        ({"shard_ids": "1"}, "needs DISCORD_SHARD_COUNT"),
        ({"shard_count": 2, "shard_ids": "0,0"}, "named twice"),
        ({"shard_count": 2, "shard_ids": "2"}, "from 0 to 1"),
        ({"shard_count": 4, "shard_ids": "1,x"}, "from 0 to 3"),
    ],
)
def test_bad_shard_settings_say_what_to_fix(values, message):
    with pytest.raises(ValueError, match=message):
        DiscordSettings(_env_file=None, bot_token="t", **values)


async def test_one_process_runs_several_shards_and_answers_in_each_guild():
    fake = FakeDiscord(guilds=2)
    await fake.start()
    try:
        async with running_bot(fake, ScriptedEngine(), shard_count=2, shard_ids="0,1") as client:
            assert isinstance(client, discord.AutoShardedClient) and sorted(client.shards) == [0, 1]
            assert sorted(tuple(i["shard"]) for i in fake.gateway.identifies) == [(0, 2), (1, 2)]
            for guild, channel in fake.guild_channels.items():
                await fake.user_message("何为仁", mention_bot=True, guild=guild)
                await fake.wait_until(lambda c=channel: bool(fake.channel_messages(c["id"])))
                assert fake.channel_messages(channel["id"])[0]["content"] == "echo: 何为仁"
        assert len(command_syncs(fake)) == 1
    finally:
        await fake.stop()


async def test_two_processes_connected_as_one_shard_answer_once(fake_discord: FakeDiscord):
    seen = InMemorySeen()  # shared, as RedisSeen is between processes
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine, seen=seen), running_bot(fake_discord, engine, seen=seen):
        channel = fake_discord.channel["id"]
        await fake_discord.user_message("何为礼", mention_bot=True)
        await fake_discord.wait_until(lambda: bool(fake_discord.channel_messages(channel)))
        await fake_discord.slash("ask", {"question": "何为孝"})
        await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/callback"))
        await asyncio.sleep(0.5)  # a second answer would have started by now
        assert len(fake_discord.channel_messages(channel)) == 1
        assert len(fake_discord.calls("POST", r"/callback$")) == 1
        assert [i.text for i in engine.received] == ["何为礼", "何为孝"]


def test_a_count_without_ids_runs_every_shard_here():
    settings = DiscordSettings(_env_file=None, bot_token="t", shard_count=3, shard_ids="")
    assert settings.shards == (0, 1, 2) and settings.syncs_commands
