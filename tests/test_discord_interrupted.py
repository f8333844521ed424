"""Discord: where a reply is shown is noted as it starts; a restart edits a frozen message closed."""

from __future__ import annotations

from core.events import FinalReply, TextDelta
from core.shown_in import ShownIn
from core.texts import say
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.engine import Hold, ScriptedEngine
from tests.helpers_discord import running_bot


async def test_the_channel_message_of_a_reply_is_noted_as_it_starts(fake_discord: FakeDiscord):
    engine, hold = ScriptedEngine(), Hold()
    engine.queue(TextDelta("君子"), hold, FinalReply("君子不器。"))
    channel_id = fake_discord.channel["id"]
    async with running_bot(fake_discord, engine):
        await fake_discord.user_message("何为君子？", mention_bot=True)
        await fake_discord.wait_for(lambda r: r.method == "POST" and r.path.endswith("/messages"))
        await fake_discord.wait_until(lambda: engine.shown)
        hold.gate.set()
        await fake_discord.wait_until(lambda: fake_discord.channel_messages(channel_id)[-1]["content"] == "君子不器。")
    (reply,) = fake_discord.channel_messages(channel_id)
    assert engine.shown == [(engine.received[0].trace_id, ShownIn("discord", str(channel_id), int(reply["id"])))]


async def test_a_frozen_message_is_edited_closed_when_the_bot_is_ready(fake_discord: FakeDiscord):
    channel_id = fake_discord.channel["id"]
    first = ScriptedEngine()
    hold = Hold()
    first.queue(TextDelta("子曰：学而"), hold)
    async with running_bot(fake_discord, first):  # a reply that never finishes: the frozen partial
        await fake_discord.user_message("学而时习之？", mention_bot=True)
        await fake_discord.wait_until(lambda: first.shown)
    (frozen,) = fake_discord.channel_messages(channel_id)
    second = ScriptedEngine(interrupted=[first.shown[0][1], ShownIn("telegram", "1", 2)])
    async with running_bot(fake_discord, second):
        await fake_discord.wait_until(
            lambda: fake_discord.channel_messages(channel_id)[0]["content"] == say("INTERRUPTED", None)
        )
    edits = fake_discord.calls("PATCH", rf"/channels/{channel_id}/messages/{frozen['id']}$")
    assert edits[-1].body["content"] == say("INTERRUPTED", None)
    assert second.interrupted == [ShownIn("telegram", "1", 2)]  # discord's taken once; telegram's left for its adapter
