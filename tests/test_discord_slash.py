"""Slash commands end to end: discord.py against the fake gateway + REST, a scripted engine."""

from __future__ import annotations

import re

import structlog.testing

from core.events import Citation, FinalReply, Notice, TextDelta
from tests.fakes.clock import FakeClock
from tests.fakes.discord_server import FakeDiscord, Recorded, fake_discord  # noqa: F401
from tests.fakes.engine import Hold, ScriptedEngine
from tests.helpers_discord import running_bot

ORIGINAL = r"/messages/@original$"


def _patches(fake: FakeDiscord) -> list[Recorded]:
    return fake.calls("PATCH", ORIGINAL)


async def test_ask_defers_streams_edits_and_ends_with_footnotes(fake_discord: FakeDiscord):
    engine, hold = ScriptedEngine(), Hold()
    citation = Citation(1, "lunyu:2.12", "《论语·为政》第12章", "子曰：君子不器。")
    engine.queue(TextDelta("子曰："), hold, TextDelta("君子不器。[1]"), FinalReply("子曰：君子不器。[1]", (citation,)))
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("ask", {"question": "何为君子"})
        (callback,) = await fake_discord.wait_for(lambda r: r.path.endswith("/callback"))
        await fake_discord.wait_for(lambda r: r.method == "PATCH" and r.body["content"] == "子曰：")
        hold.gate.set()
        await fake_discord.wait_until(lambda: "《" in (fake_discord.original(inter["token"]) or {}).get("content", ""))
    assert callback.body == {"type": 5}  # deferred, "thinking…"
    assert callback.path == f"/interactions/{inter['id']}/{inter['token']}/callback"
    contents = [r.body["content"] for r in _patches(fake_discord)]
    assert contents[0] == "子曰："
    assert contents[-1] == "子曰：君子不器。[1]\n\n-# [1] 《论语·为政》第12章"  # footnotes as Discord subtext
    assert fake_discord.followups(inter["token"]) == []
    (incoming,) = engine.received
    assert (incoming.command, incoming.text, incoming.addressed, incoming.is_group) == (None, "何为君子", True, True)
    assert incoming.chat_id == fake_discord.channel["id"] and incoming.user_id == fake_discord.human["id"]


async def test_edits_are_paced_by_the_channel_budget(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    pieces = [f"第{i}句。" for i in range(40)]

    async def slowly():
        import asyncio

        await asyncio.sleep(0.01)

    steps: list = []
    for piece in pieces:
        steps += [TextDelta(piece), slowly]
    engine.queue(*steps, FinalReply("".join(pieces)))
    async with running_bot(fake_discord, engine, edit_interval_s=0.15):
        inter = await fake_discord.slash("ask", {"question": "慢慢说"})
        await fake_discord.wait_until(
            lambda: (fake_discord.original(inter["token"]) or {}).get("content") == "".join(pieces)
        )
    webhook = [r for r in fake_discord.requests if "/webhooks/" in r.path]
    gaps = [b.at - a.at for a, b in zip(webhook, webhook[1:])]
    assert 2 <= len(webhook) < len(pieces) / 2, "deltas must be coalesced into few edits"
    assert min(gaps) >= 0.1 and sorted(gaps)[len(gaps) // 2] >= 0.14, gaps  # paced (jitter tolerated)


async def test_skill_choice_reaches_engine_as_command(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    engine.queue(Notice("已改为「诗经吟咏」。", reason="command", extra={"skill": "poetry"}))
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("skill", {"skill": "poetry"})
        await fake_discord.wait_until(lambda: (fake_discord.original(inter["token"]) or {}).get("content"))
    (incoming,) = engine.received
    assert (incoming.command, incoming.text, incoming.chat_id) == ("skill", "poetry", fake_discord.channel["id"])
    assert fake_discord.original(inter["token"])["content"] == "已改为「诗经吟咏」。"


async def test_private_command_is_ephemeral_in_guild(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    engine.queue(Notice("我记得：你喜欢《关雎》。", reason="command"))
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("memories")
        await fake_discord.wait_until(lambda: (fake_discord.original(inter["token"]) or {}).get("content"))
    (callback,) = fake_discord.calls("POST", r"/callback$")
    assert callback.body == {"type": 5, "data": {"flags": 64}}
    assert engine.received[0].command == "memories"


async def test_rate_limited_edit_is_retried_and_final_text_is_exact(fake_discord: FakeDiscord):
    engine, hold = ScriptedEngine(), Hold()
    final = "学而时习之，不亦说乎？有朋自远方来，不亦乐乎？"
    engine.queue(TextDelta("学而时习之，"), hold, TextDelta(final[6:]), FinalReply(final))
    fake_discord.fail_next("PATCH", ORIGINAL, status=429, retry_after=0.3)
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("ask", {"question": "学"})
        await fake_discord.wait_for(lambda r: r.method == "PATCH" and r.status == 429)
        hold.gate.set()  # more text arrives while the edit waits out the 429
        await fake_discord.wait_until(lambda: (fake_discord.original(inter["token"]) or {}).get("content") == final)
    patches = _patches(fake_discord)
    limited, retry = patches[0], patches[1]
    assert limited.status == 429 and retry.status == 200
    assert retry.body == limited.body and retry.at - limited.at >= 0.29
    after_limit = [r for r in fake_discord.requests if limited.at < r.at < retry.at and "/webhooks/" in r.path]
    assert after_limit == [], "no other edit may be sent while the 429 is waited out"
    assert patches[-1].body["content"] == final


async def test_long_answer_splits_into_ordered_followups(fake_discord: FakeDiscord):
    paragraphs = [f"第{i}段：" + "君子坦荡荡，小人长戚戚。" * 12 for i in range(34)]
    text = "\n\n".join(paragraphs)
    assert len(text) > 5000
    engine = ScriptedEngine()
    engine.queue(TextDelta(text[:1500]), FinalReply(text))
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("ask", {"question": "长篇"})
        await fake_discord.wait_until(lambda: len(fake_discord.followups(inter["token"])) >= 2)
        await fake_discord.wait_until(lambda: "第33段" in fake_discord.followups(inter["token"])[-1]["content"])
    parts = [fake_discord.original(inter["token"])["content"]] + [
        m["content"] for m in fake_discord.followups(inter["token"])
    ]
    assert len(parts) == 3
    assert all(len(part) <= 2000 for part in parts)
    assert "".join(parts) == text  # the splitter keeps every character, breaks between paragraphs


async def test_expired_token_continues_as_channel_message(fake_discord: FakeDiscord):
    clock, engine, hold = FakeClock(), ScriptedEngine(), Hold()
    engine.queue(
        TextDelta("先说一半，"),
        hold,
        lambda: clock.advance(3600),
        TextDelta("再说一半。"),
        FinalReply("先说一半，再说一半。"),
    )
    async with running_bot(fake_discord, engine, clock=clock, interaction_ttl_s=60):
        inter = await fake_discord.slash("ask", {"question": "久"})
        await fake_discord.wait_for(lambda r: r.method == "PATCH" and r.body["content"] == "先说一半，")
        hold.gate.set()
        channel_id = fake_discord.channel["id"]
        await fake_discord.wait_until(
            lambda: [m["content"] for m in fake_discord.channel_messages(channel_id)] == ["先说一半，再说一半。"]
        )
    original = fake_discord.original(inter["token"])
    assert original["content"] == "先说一半，"  # the token is no longer used after expiry
    (post,) = fake_discord.calls("POST", rf"/channels/{channel_id}/messages$")
    assert str(post.body["message_reference"]["message_id"]) == original["id"]


async def test_engine_failure_answers_with_apology_and_trace(fake_discord: FakeDiscord):
    engine = ScriptedEngine()

    def boom():
        raise RuntimeError("secret internals")

    engine.queue(TextDelta("正要说"), boom)
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("ask", {"question": "错"})
        await fake_discord.wait_until(
            lambda: "trace" in (fake_discord.original(inter["token"]) or {}).get("content", "")
        )
    content = fake_discord.original(inter["token"])["content"]
    assert engine.received[0].trace_id in content and "secret" not in content


async def test_handler_error_is_logged_and_answered_with_ephemeral_apology(fake_discord: FakeDiscord):
    fake_discord.fail_next("POST", r"/callback$", status=400)
    with structlog.testing.capture_logs() as logs:
        async with running_bot(fake_discord, ScriptedEngine()):
            await fake_discord.slash("ask", {"question": "坏"})
            calls = await fake_discord.wait_for(lambda r: r.path.endswith("/callback"), count=2)
    apology = calls[1].body
    assert apology["type"] == 4 and apology["data"]["flags"] == 64
    trace_id = re.search(r"trace ([0-9a-f]{16})", apology["data"]["content"]).group(1)
    (failure,) = [e for e in logs if e["event"] == "discord_command_failed"]
    assert failure["trace_id"] == trace_id and failure["command"] == "ask" and failure["log_level"] == "error"


async def test_engine_registered_command_reaches_engine(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    engine.queue(Notice("已停止。Stopped.", reason="command", extra={"cancelled": True}))
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("cancel")
        await fake_discord.wait_until(lambda: (fake_discord.original(inter["token"]) or {}).get("content"))
    (incoming,) = engine.received
    assert (incoming.command, incoming.text) == ("cancel", "")
    assert fake_discord.original(inter["token"])["content"] == "已停止。Stopped."


async def test_unknown_command_gets_ephemeral_apology(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine):
        await fake_discord.slash("vanished")  # e.g. a stale command Discord still shows
        (callback,) = await fake_discord.wait_for(lambda r: r.path.endswith("/callback"))
    assert callback.body["type"] == 4 and callback.body["data"]["flags"] == 64
    assert re.search(r"trace [0-9a-f]{16}", callback.body["data"]["content"])
    assert engine.received == []


async def test_ask_in_dm_is_a_private_chat(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("memories", dm=True)
        await fake_discord.wait_until(lambda: (fake_discord.original(inter["token"]) or {}).get("content"))
    (incoming,) = engine.received
    assert (incoming.chat_id, incoming.is_group, incoming.command) == (fake_discord.dm_channel_id, False, "memories")
    (callback,) = fake_discord.calls("POST", r"/callback$")
    assert callback.body == {"type": 5}  # a DM is private anyway: no ephemeral flag


async def test_expired_private_answer_continues_in_dm(fake_discord: FakeDiscord):
    clock, engine = FakeClock(), ScriptedEngine()
    engine.queue(lambda: clock.advance(3600), Notice("我记得：你住在鲁国。", reason="command"))
    async with running_bot(fake_discord, engine, clock=clock, interaction_ttl_s=60):
        inter = await fake_discord.slash("memories")
        (post,) = await fake_discord.wait_for(lambda r: r.path == f"/channels/{fake_discord.dm_channel_id}/messages")
    assert post.body["content"] == "我记得：你住在鲁国。"
    assert fake_discord.calls("POST", rf"/channels/{fake_discord.channel['id']}/messages$") == []
    assert _patches(fake_discord) == [] and fake_discord.original(inter["token"])["content"] == ""


async def test_rejected_token_moves_the_reply_to_the_channel(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    engine.queue(TextDelta("温故而知新，"), FinalReply("温故而知新，可以为师矣。"))
    fake_discord.fail_next("PATCH", ORIGINAL, status=401)  # e.g. Discord already expired the token
    channel_id = fake_discord.channel["id"]
    async with running_bot(fake_discord, engine):
        await fake_discord.slash("ask", {"question": "师"})
        await fake_discord.wait_until(
            lambda: [m["content"] for m in fake_discord.channel_messages(channel_id)] == ["温故而知新，可以为师矣。"]
        )
    assert len(_patches(fake_discord)) == 1, "a rejected token is not tried again"
