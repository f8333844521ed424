"""Discord split over processes: each identifies as its own shard; only shard 0 syncs slash commands."""

from __future__ import annotations

import pytest

from adapters.discord.settings import DiscordSettings
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.helpers_discord import ScriptedEngine, running_bot


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
        ({"shard_count": 2, "shard_ids": "0,1"}, "exactly one shard id"),
        ({"shard_count": 2, "shard_ids": "2"}, "from 0 to 1"),
    ],
)
def test_bad_shard_settings_say_what_to_fix(values, message):
    with pytest.raises(ValueError, match=message):
        DiscordSettings(_env_file=None, bot_token="t", **values)
