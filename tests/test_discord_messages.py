"""Mentions, DMs and threads end to end: discord.py against the fake gateway + REST."""

from __future__ import annotations

import asyncio

from core.events import FinalReply, TextDelta, ToolStep
from tests.fakes.discord_payloads import snowflake, user
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.engine import Hold, ScriptedEngine
from tests.helpers_discord import running_bot


def _channel_posts(fake: FakeDiscord, channel_id: str):
    return fake.calls("POST", rf"/channels/{channel_id}/messages$")


async def test_mention_gets_a_reply_then_edits(fake_discord: FakeDiscord):
    engine, hold = ScriptedEngine(), Hold()
    engine.queue(
        ToolStep("search_classics", "start"), TextDelta("君子"), hold, TextDelta("不器。"), FinalReply("君子不器。")
    )
    channel_id = fake_discord.channel["id"]
    async with running_bot(fake_discord, engine):
        msg = await fake_discord.user_message("何为君子？", mention_bot=True)
        (post,) = await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/messages"))
        hold.gate.set()
        await fake_discord.wait_until(lambda: fake_discord.channel_messages(channel_id)[-1]["content"] == "君子不器。")
    assert post.body["content"] == "君子"
    assert post.body["message_reference"]["message_id"] == int(msg["id"])
    assert post.body["allowed_mentions"] == {"parse": [], "replied_user": False}
    (reply,) = fake_discord.channel_messages(channel_id)
    edits = fake_discord.calls("PATCH", rf"/channels/{channel_id}/messages/{reply['id']}$")
    assert edits and edits[-1].body["content"] == "君子不器。"
    (incoming,) = engine.received
    assert incoming.text == "何为君子？" and incoming.addressed and incoming.is_group
    assert incoming.message_id == msg["id"] and incoming.command is None


async def test_dm_is_answered_and_private(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine):
        await fake_discord.user_message("/skill poetry", dm=True)
        await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/messages"))
    (incoming,) = engine.received
    assert (incoming.command, incoming.text, incoming.is_group) == ("skill", "poetry", False)
    assert incoming.chat_id == fake_discord.dm_channel_id
    assert _channel_posts(fake_discord, fake_discord.dm_channel_id)[0].body["content"] == "echo: poetry"


async def test_unaddressed_guild_message_is_ignored_without_content_intent(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine):
        await fake_discord.user_message("大家好")
        await fake_discord.user_message("夫子在吗", mention_bot=True)
        await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/messages"))
    assert [i.text for i in engine.received] == ["夫子在吗"]


async def test_unaddressed_guild_message_is_context_with_content_intent(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine, message_content=True):
        assert fake_discord.gateway.identifies[0]["intents"] & (1 << 15)
        await fake_discord.user_message("大家好")
        await asyncio.wait_for(engine.arrived.wait(), 5)
    (incoming,) = engine.received
    assert incoming.addressed is False and incoming.text == "大家好"
    assert fake_discord.calls("POST", r"/messages$") == []


async def test_thread_started_by_bot_needs_no_mention(fake_discord: FakeDiscord):
    ours, theirs = fake_discord.add_thread(), fake_discord.add_thread(owner_id=fake_discord.human["id"])
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine):
        await fake_discord.user_message("在别人的线程里", channel_id=theirs["id"])
        await fake_discord.user_message("接着说", channel_id=ours["id"])
        await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/messages"))
    (incoming,) = engine.received
    assert incoming.chat_id == ours["id"] and incoming.is_group
    assert _channel_posts(fake_discord, ours["id"])[0].body["content"] == "echo: 接着说"


async def test_thread_replies_start_a_thread_for_a_mention(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine, thread_replies=True) as client:
        msg = await fake_discord.user_message("论仁", mention_bot=True)
        (start,) = await fake_discord.wait_for(lambda r: r.path.endswith("/threads"))
        thread_id = fake_discord.threads[-1]["id"]
        await fake_discord.wait_for(lambda r: r.path == f"/channels/{thread_id}/messages")
        await fake_discord.wait_until(lambda: client.get_channel(int(thread_id)) is not None)
        await fake_discord.user_message("再问", channel_id=thread_id)
        await fake_discord.wait_for(
            lambda r: r.method == "POST" and r.path == f"/channels/{thread_id}/messages", count=2
        )
    assert start.path == f"/channels/{fake_discord.channel['id']}/messages/{msg['id']}/threads"
    assert start.body["name"] == "论仁"
    assert [i.chat_id for i in engine.received] == [thread_id, thread_id]
    assert [i.text for i in engine.received] == ["论仁", "再问"]


async def test_bots_are_ignored(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    fake_discord.human["bot"] = True
    async with running_bot(fake_discord, engine):
        await fake_discord.user_message("我也是机器人", dm=True)
        await fake_discord.user_message("我也是机器人", mention_bot=True)
        fake_discord.human["bot"] = False
        await fake_discord.user_message("人来了", dm=True)  # handled after the two above
        await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/messages"))
    assert [i.text for i in engine.received] == ["人来了"]


async def test_bot_role_mention_and_reply_to_bot_are_addressed(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    channel_id = fake_discord.channel["id"]
    async with running_bot(fake_discord, engine):
        await fake_discord.user_message("以角色相呼", mention_role=True)
        await fake_discord.wait_until(lambda: len(fake_discord.channel_messages(channel_id)) == 1)
        answer = fake_discord.channel_messages(channel_id)[0]
        await fake_discord.user_message("回复夫子", reply_to=answer)
        await fake_discord.wait_until(lambda: len(fake_discord.channel_messages(channel_id)) == 2)
        other = await fake_discord.user_message("回复别人")  # not addressed, nor is a reply to it
        await fake_discord.user_message("回复那条", reply_to=other)
        await fake_discord.user_message("收尾", mention_bot=True)
        await fake_discord.wait_until(lambda: len(fake_discord.channel_messages(channel_id)) == 3)
    assert [i.text for i in engine.received] == ["以角色相呼", "回复夫子", "收尾"]


async def test_other_mentions_reach_the_engine_as_names(fake_discord: FakeDiscord):
    zeng = user(snowflake(), "曾参")
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine):
        await fake_discord.user_message(f"<@{zeng['id']}> 说吾道一以贯之，何谓也？", mention_bot=True, others=[zeng])
        await asyncio.wait_for(engine.arrived.wait(), 5)
    assert engine.received[0].text == "@曾参 说吾道一以贯之，何谓也？"
