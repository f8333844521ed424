"""Discord's messages and interactions kept in the inbox (adapters/discord/intake.py) on a SQLite file.

A "dead process" is a bot whose engine holds its reply forever and whose inbox never renews its
entries, closed afterwards: its entry stays pending with a silent owner, as after a kill -9. A second
bot on the same file claims it at ``inbox.tick()`` and answers it (a message fetched again over REST,
an interaction through its token), or, when too old, tells the person in one line.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from adapters.discord.intake import interaction_key, message_key
from core.engine.lookup import NOTHING, LookupResult
from core.inbox import Inbox, InboxEntry
from core.storage import create_database_engine, create_engine_and_tables
from core.storage.inbox import SqlInboxStore
from core.texts import say
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.engine import Hold, ScriptedEngine
from tests.helpers_discord import running_bot

DEAD = "gone-host:4242:deadbeef"


@pytest.fixture
def sql(tmp_path):
    engine = create_engine_and_tables(f"sqlite:///{tmp_path / 'fuzi.sqlite3'}")
    yield engine
    engine.dispose()


def statuses(sql) -> dict[str, str]:
    with sql.connect() as c:
        return dict(c.execute(text("SELECT key, status FROM inbox")).all())  # type: ignore[arg-type]


def live_inbox(sql, **kwargs) -> Inbox:
    """A live process's inbox: another process's entries are orphans 0.15 s after its last heartbeat."""
    return Inbox(SqlInboxStore(sql), lease_s=0.1, **kwargs)


async def hand_over(inbox: Inbox) -> None:
    """Tick until the bot has registered (once ready) and an orphan was handed to it."""
    for _ in range(100):
        if await inbox.tick():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("no orphan was handed over")


async def orphan(sql, key: str, payload: dict, age_s: float) -> None:
    """A pending entry a process that died ``age_s`` ago left behind."""
    then = datetime.now(UTC) - timedelta(seconds=age_s)
    await SqlInboxStore(sql).put(InboxEntry("discord", key, payload, DEAD, then, then))


async def dead_process_takes(fake: FakeDiscord, sql, send) -> tuple[ScriptedEngine, dict]:
    """A bot takes what ``send()`` dispatches, starts on it and dies (module docstring)."""
    engine, hold = ScriptedEngine(), Hold()
    engine.queue(hold)
    async with running_bot(fake, engine, inbox=Inbox(SqlInboxStore(sql))):
        data = await send()
        await asyncio.wait_for(hold.reached.wait(), 10)
    return engine, data


async def test_a_message_dispatched_twice_is_answered_once_and_closed(fake_discord: FakeDiscord, sql):
    engine = ScriptedEngine()
    channel = fake_discord.channel["id"]
    async with running_bot(fake_discord, engine, inbox=Inbox(SqlInboxStore(sql))):
        data = await fake_discord.user_message("何为仁", mention_bot=True)
        await fake_discord.dispatch("MESSAGE_CREATE", data)
        await fake_discord.wait_until(lambda: bool(fake_discord.channel_messages(channel)))
        await asyncio.sleep(0.5)  # a second answer would have started by now
    assert [m["content"] for m in fake_discord.channel_messages(channel)] == ["echo: 何为仁"]
    assert statuses(sql) == {message_key(int(data["id"])): "done"}


async def test_a_message_a_dead_process_took_is_fetched_again_and_answered(fake_discord: FakeDiscord, sql):
    channel = fake_discord.channel["id"]
    first, data = await dead_process_takes(
        fake_discord, sql, lambda: fake_discord.user_message("何为仁", mention_bot=True)
    )
    key = message_key(int(data["id"]))
    assert statuses(sql) == {key: "pending"} and fake_discord.channel_messages(channel) == []

    second = ScriptedEngine()
    inbox = live_inbox(sql)
    async with running_bot(fake_discord, second, inbox=inbox):
        await hand_over(inbox)
        await fake_discord.wait_until(lambda: bool(fake_discord.channel_messages(channel)))
        await fake_discord.wait_until(lambda: statuses(sql)[key] == "done")
    (answer,) = fake_discord.channel_messages(channel)
    assert answer["content"] == "echo: 何为仁"
    assert str(answer["message_reference"]["message_id"]) == data["id"]  # replies to the person's message
    assert fake_discord.calls("GET", rf"/channels/{channel}/messages/{data['id']}$")
    assert replace(second.received[0], trace_id="") == replace(first.received[0], trace_id="")


async def test_a_message_orphan_too_old_gets_the_lost_line(fake_discord: FakeDiscord, sql):
    channel = fake_discord.channel["id"]
    engine = ScriptedEngine()
    inbox = live_inbox(sql, max_age_s=600)
    async with running_bot(fake_discord, engine, inbox=inbox):
        asked = await fake_discord.user_message("何为礼", mention_bot=True)  # answered now: its own entry
        await fake_discord.wait_until(lambda: bool(fake_discord.channel_messages(channel)))
        payload = {"kind": "message", "channel": channel, "guild": fake_discord.guild_id, "addressed": True}
        await orphan(sql, message_key(int(asked["id"]) + 1), payload | {"message": str(int(asked["id"]) + 1)}, 700)
        await hand_over(inbox)
        await fake_discord.wait_until(lambda: len(fake_discord.channel_messages(channel)) == 2)
    lost = fake_discord.channel_messages(channel)[1]
    assert lost["content"] == say("LOST", None)
    assert str(lost["message_reference"]["message_id"]) == str(int(asked["id"]) + 1)
    assert len(engine.received) == 1  # told, not answered
    assert statuses(sql)[message_key(int(asked["id"]) + 1)] == "lost"


async def test_an_orphan_whose_message_was_deleted_is_closed_quietly(fake_discord: FakeDiscord, sql):
    channel = fake_discord.channel["id"]
    engine = ScriptedEngine()
    inbox = live_inbox(sql)
    payload = {
        "kind": "message",
        "channel": channel,
        "guild": fake_discord.guild_id,
        "message": "17",
        "addressed": True,
    }
    await orphan(sql, message_key(17), payload, 5)
    async with running_bot(fake_discord, engine, inbox=inbox):
        await hand_over(inbox)
        await fake_discord.wait_until(lambda: statuses(sql)[message_key(17)] == "done")
    assert fake_discord.channel_messages(channel) == [] and engine.received == []


async def test_a_deferred_interaction_a_dead_process_took_is_answered_in_its_original_response(
    fake_discord: FakeDiscord, sql
):
    first, data = await dead_process_takes(fake_discord, sql, lambda: fake_discord.slash("ask", {"question": "何为孝"}))
    token, key = data["token"], interaction_key(int(data["id"]))
    assert fake_discord.original(token) is not None  # deferred before the engine was asked
    assert statuses(sql) == {key: "pending"}

    second = ScriptedEngine()
    inbox = live_inbox(sql)
    async with running_bot(fake_discord, second, inbox=inbox):
        await hand_over(inbox)
        await fake_discord.wait_until(lambda: (fake_discord.original(token) or {}).get("content") == "echo: 何为孝")
        await fake_discord.wait_until(lambda: statuses(sql)[key] == "done")
    assert replace(second.received[0], trace_id="") == replace(first.received[0], trace_id="")
    assert len(fake_discord.calls("POST", r"/callback$")) == 1  # the dead process's deferral only
    assert fake_discord.channel_messages(fake_discord.channel["id"]) == []


async def test_an_interaction_orphan_too_old_gets_the_lost_line_in_its_original_response(
    fake_discord: FakeDiscord, sql
):
    _, data = await dead_process_takes(fake_discord, sql, lambda: fake_discord.slash("ask", {"question": "何为孝"}))
    second = ScriptedEngine()
    inbox = live_inbox(sql, max_age_s=0)  # every orphan is too old
    async with running_bot(fake_discord, second, inbox=inbox):
        await hand_over(inbox)
        await fake_discord.wait_until(lambda: statuses(sql)[interaction_key(int(data["id"]))] == "lost")
    assert fake_discord.original(data["token"])["content"] == say("LOST", None)
    assert second.received == []


async def test_an_interaction_whose_token_expired_is_answered_in_its_channel(fake_discord: FakeDiscord, sql):
    channel = fake_discord.channel["id"]
    _, data = await dead_process_takes(fake_discord, sql, lambda: fake_discord.slash("ask", {"question": "何为孝"}))
    with sql.begin() as c:  # taken 20 minutes ago: its token is dead
        c.execute(text("UPDATE inbox SET received_at = :t"), {"t": datetime.now(UTC) - timedelta(minutes=20)})
    inbox = live_inbox(sql, max_age_s=3600)
    async with running_bot(fake_discord, ScriptedEngine(), inbox=inbox):
        await hand_over(inbox)
        await fake_discord.wait_until(lambda: bool(fake_discord.channel_messages(channel)))
    assert fake_discord.channel_messages(channel)[0]["content"] == "echo: 何为孝"
    assert fake_discord.original(data["token"])["content"] == ""  # the dead token was not used


class StuckLookUp(ScriptedEngine):
    """A look-up that never ends: the process dies on /passage."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = Hold()

    async def look_up(self, platform: str, user_id: str, query: str, k: int = 10) -> LookupResult:
        self.hold.reached.set()
        await self.hold.gate.wait()
        return LookupResult(hint=NOTHING)


async def test_a_passage_a_dead_process_took_is_answered_in_its_original_response(fake_discord: FakeDiscord, sql):
    first = StuckLookUp()
    async with running_bot(fake_discord, first, inbox=Inbox(SqlInboxStore(sql))):
        data = await fake_discord.slash("passage", {"query": "学而"})
        await asyncio.wait_for(first.hold.reached.wait(), 10)
    inbox = live_inbox(sql)
    async with running_bot(fake_discord, ScriptedEngine(), inbox=inbox):
        await hand_over(inbox)
        await fake_discord.wait_until(lambda: (fake_discord.original(data["token"]) or {}).get("content") == NOTHING)
        await fake_discord.wait_until(lambda: statuses(sql)[interaction_key(int(data["id"]))] == "done")


async def test_a_message_is_answered_when_the_inbox_cannot_be_written(fake_discord: FakeDiscord, tmp_path):
    broken = create_database_engine(f"sqlite:///{tmp_path / 'missing' / 'fuzi.sqlite3'}")
    channel = fake_discord.channel["id"]
    async with running_bot(fake_discord, ScriptedEngine(), inbox=Inbox(SqlInboxStore(broken))):
        await fake_discord.user_message("何为仁", mention_bot=True)
        await fake_discord.wait_until(lambda: bool(fake_discord.channel_messages(channel)))
        await fake_discord.slash("ask", {"question": "何为孝"})
        await fake_discord.wait_until(lambda: len(fake_discord.calls("PATCH", r"/messages/@original$")) > 0)
    assert fake_discord.channel_messages(channel)[0]["content"] == "echo: 何为仁"
