"""Discord as N processes: `fuzi run discord` shard processes on one PostgreSQL schema and one Redis
prefix against the fake gateway, a guild per shard (guild k on shard k of 2).

Checked: the slash commands are synced once (by shard 0's process); a fact remembered through one
shard is known in the other; a person's limit counts messages from both; a killed process is replaced
by one running both shards (discord.py's AutoShardedClient), and while the old shard-1 process is
still connected as well, every message is answered exactly once (the inbox in PostgreSQL).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_asyncio

from tests.fakes.discord_server import FakeDiscord
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_db import postgres_url, redis_prefix  # noqa: F401
from tests.helpers_replicas import FuziProcess, fuzi_env, release_index, stop_all

pytestmark = pytest.mark.processes


@pytest_asyncio.fixture
async def discord2():
    fake = FakeDiscord(guilds=2, heartbeat_interval_ms=1000)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


def shard_process(env: dict, shards: str, log: Path) -> FuziProcess:
    """`fuzi run discord` running the shards `shards` ("0", "1", "0,1") of DISCORD_SHARD_COUNT."""
    return FuziProcess(env | {"DISCORD_SHARD_IDS": shards}, "discord", log)


def command_syncs(fake: FakeDiscord) -> int:
    return len(fake.calls("PUT", r"/commands$"))


async def connected(fake: FakeDiscord, shards: list[tuple[int, int]], procs: list[FuziProcess], count: int = 1):
    """Wait until each shard in `shards` has `count` identified connections (then READY settles)."""

    def done() -> bool:
        for p in procs:
            p.assert_alive()
        have = fake.identified_shards()
        return all(have.count(s) >= count for s in shards)

    for _ in range(240):
        if done():
            await asyncio.sleep(1.5)  # READY and GUILD_CREATE handled
            return
        await asyncio.sleep(0.5)
    raise AssertionError("shards not connected: " + " | ".join(p.tail() for p in procs))


async def ask(fake: FakeDiscord, guild: str, text: str, *needles: str, timeout: float = 40) -> str:
    """A mention in `guild`'s channel; the bot's newest message there once it contains one of `needles`."""
    channel = fake.guild_channels[guild]["id"]
    before = len(fake.channel_messages(channel))
    await fake.user_message(text, mention_bot=True, guild=guild)

    def answer() -> str | None:
        new = fake.channel_messages(channel)[before:]
        return next((m["content"] for m in new if any(n in m["content"] for n in needles)), None)

    try:
        await fake.wait_until(lambda: answer() is not None, timeout=timeout)
    except TimeoutError:
        raise AssertionError(f"no answer with {needles}: {fake.channel_messages(channel)[before:]}") from None
    await asyncio.sleep(1.5)  # the reply finishes (final edit, stored, the person's lease released)
    return answer() or ""


@pytest.mark.timeout(600)
async def test_two_shard_processes_share_memory_and_limits_and_a_replacement_answers_once(
    tmp_path, discord2, fake_llm, postgres_url, redis_prefix
):
    fake = discord2
    redis_url, prefix = redis_prefix
    home = tmp_path / "home"
    home.mkdir()
    env = fuzi_env(
        home,
        postgres_url,
        fake_llm.base_url,
        FUZI_REDIS_URL=redis_url,
        FUZI_REDIS_PREFIX=prefix,
        FUZI_GUARD_PER_MINUTE="3",
        DISCORD_BOT_TOKEN="test-token",
        DISCORD_API_BASE_URL=fake.base_url,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        DISCORD_SHARD_COUNT="2",
        DISCORD_EDIT_INTERVAL_S="0.2",
    )
    fake_llm.set_default(lambda body: "学而时习之，不亦说乎？")
    await release_index(env)
    g0, g1 = list(fake.guild_channels)
    a = shard_process(env, "0", tmp_path / "shard0.log")
    b = shard_process(env, "1", tmp_path / "shard1.log")
    procs = [a, b]
    try:
        await connected(fake, [(0, 2), (1, 2)], procs)
        assert command_syncs(fake) == 1  # shard 0's process synced; shard 1's left it

        # a fact remembered through shard 0 is known through shard 1
        assert "记下了" in await ask(fake, g0, "/remember 我下周要考《论语》", "记下了")
        assert "我下周要考《论语》" in await ask(fake, g1, "/memories", "论语", "尚未")

        # the person's limit (3 a minute) counts questions through both shards: the 4th is refused
        answer, refused = "学而时习之", "子问得急了"
        replies = [await ask(fake, g, "何为仁？", answer, refused) for g in (g0, g1, g0, g1)]
        assert [refused in r for r in replies] == [False, False, False, True]

        # shard 0's process dies; its replacement runs both shards while the shard-1 process still runs
        a.proc.kill()
        a.proc.wait(10)
        c = shard_process(env, "0,1", tmp_path / "shards01.log")
        procs = [b, c]
        await connected(fake, [(0, 2), (1, 2)], procs, count=1)
        await connected(fake, [(1, 2)], procs, count=2)  # shard 1: the old process and the replacement
        for guild in (g1, g0):  # (a command: the person's question limit is spent)
            channel = fake.guild_channels[guild]["id"]
            before = len(fake.channel_messages(channel))
            assert "我下周要考《论语》" in await ask(fake, guild, "/memories", "论语")
            await asyncio.sleep(3.0)  # a second answer would have started by now
            assert len(fake.channel_messages(channel)) - before == 1, fake.channel_messages(channel)[before:]
    finally:
        stop_all([*procs, a])  # a twice while it runs: stopping twice is harmless
