"""Discord in a server with the real engine: quoted replies (fetched when not included), /settings
with choices answered ephemerally and owned by Manage Server/Channels, /passage with autocomplete."""

from __future__ import annotations

import asyncio

import pytest

from core.guards import FuziGuard, InMemoryRateLimiter, Quota
from core.llm.client import OpenAIChatClient
from core.memory import MemoryConfig, build_memory
from tests.fakes import discord_payloads as p
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_discord import running_bot
from tests.helpers_engine import CorpusRetriever, make_service, sqlite_storage
from tests.helpers_wait import eventually
from tests.test_memory_fixtures import HashEmbedder

MANAGE_CHANNELS, SEND_MESSAGES = 1 << 4, 1 << 11


@pytest.fixture
def parts(tmp_path, fake_llm):
    storage = sqlite_storage(tmp_path)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="fake", timeout_s=5)
    memory = build_memory(storage.engine, None, HashEmbedder(), MemoryConfig())
    guard = FuziGuard(InMemoryRateLimiter(Quota()))
    return storage, make_service(storage, llm=llm, retriever=CorpusRetriever(), context=memory.context, guard=guard)


def answered(fake: FakeDiscord, text: str, service) -> bool:
    """The answer is shown and the person's reply slot is free again (else the next question is "busy")."""
    shown = any(m["content"] == text for m in fake.channel_messages(fake.channel["id"]))
    return shown and not service.admission.running.is_running(1)


def last_user_content(fake_llm) -> str:
    return [m for m in fake_llm.requests[-1]["messages"] if m["role"] == "user"][-1]["content"]


async def test_reply_chain_is_quoted_and_fetched_where_the_gateway_left_it_out(
    fake_discord: FakeDiscord, fake_llm, parts
):
    _, service = parts
    bo = p.user(p.snowflake(), "Bo")
    zeng = p.user(p.snowflake(), "Zeng")
    fake_llm.reply_text("曾子所言是也。")
    fake_llm.reply_text("删去之言，不复论。")
    async with running_bot(fake_discord, service):
        first = await fake_discord.user_message("吾日三省吾身", author=zeng)
        second = await fake_discord.user_message("三省是哪三件事？", author=bo, reply_to=first)
        await fake_discord.user_message("他们说得对吗？", mention_bot=True, reply_to=second)
        await eventually(lambda: answered(fake_discord, "曾子所言是也。", service))
        chain = last_user_content(fake_llm)
        # a reference without the message (not in the payload): fetched over REST; a deleted one ends the chain
        gone = {"id": p.snowflake(), "channel_id": fake_discord.channel["id"]}
        await fake_discord.user_message("这句何解？", mention_bot=True, reply_to=first, reference_only=True)
        await eventually(lambda: answered(fake_discord, "删去之言，不复论。", service))
        fetched = last_user_content(fake_llm)
        fake_llm.reply_text("答。")
        await fake_discord.user_message("那这句呢？", mention_bot=True, reply_to=gone, reference_only=True)
        await eventually(lambda: answered(fake_discord, "答。", service))
        deleted = last_user_content(fake_llm)
    assert chain.index('<quoted from="Zeng"') < chain.index('<quoted from="Bo"') < chain.index("他们说得对吗？")
    assert "吾日三省吾身" in chain and "三省是哪三件事？" in chain
    assert fake_discord.calls("GET", rf"/channels/\d+/messages/{first['id']}")  # level 2 came over REST
    assert '<quoted from="Zeng" source="reply">\n吾日三省吾身\n</quoted>' in fetched
    assert "<quoted" not in deleted and "那这句呢？" in deleted


async def test_settings_group_ephemeral_admin_rule_and_log(fake_discord: FakeDiscord, parts):
    storage, service = parts
    chat = f"discord:{fake_discord.channel['id']}"
    async with running_bot(fake_discord, service):
        member = str(SEND_MESSAGES)
        refused = await fake_discord.slash(
            "settings", {"value": "traditional"}, subcommand="script", permissions=member
        )
        await fake_discord.wait_until(
            lambda: "admins" in (fake_discord.original(refused["token"]) or {}).get("content", "")
        )
        allowed = await fake_discord.slash(
            "settings", {"value": "traditional"}, subcommand="script", permissions=str(MANAGE_CHANNELS | SEND_MESSAGES)
        )
        await fake_discord.wait_until(
            lambda: "已改为" in (fake_discord.original(allowed["token"]) or {}).get("content", "")
        )
        daily = await fake_discord.slash("settings", {"time": "8:00 pm", "zone": "asia/taipei"}, subcommand="daily")
        await fake_discord.wait_until(
            lambda: "20:00 Asia/Taipei" in (fake_discord.original(daily["token"]) or {}).get("content", "")
        )
        bad = await fake_discord.slash("settings", {"time": "25:00"}, subcommand="daily")
        await fake_discord.wait_until(
            lambda: "00:00–23:59" in (fake_discord.original(bad["token"]) or {}).get("content", "")
        )
        shown = await fake_discord.slash("settings", {}, subcommand="show", permissions=member)
        await fake_discord.wait_until(
            lambda: "traditional" in (fake_discord.original(shown["token"]) or {}).get("content", "")
        )
    callbacks = fake_discord.calls("POST", r"/callback$")
    assert all(c.body == {"type": 5, "data": {"flags": 64}} for c in callbacks)  # every answer ephemeral
    settings = await storage.settings.fresh(chat)
    assert settings.script == "traditional" and str(settings.daily) == "20:00 Asia/Taipei"
    assert [c.field for c in await storage.settings.history(chat)] == ["daily", "script"]
    synced = fake_discord.calls("PUT", r"/commands$")[-1].body
    group = next(c for c in synced if c["name"] == "settings")
    assert {o["name"] for o in group["options"]} == {"show", "skill", "script", "daily", "digest", "quiz", "books"}
    script = next(o for o in group["options"] if o["name"] == "script")
    assert [c["value"] for c in script["options"][0]["choices"]] == ["simplified", "traditional", "auto"]


async def test_passage_autocomplete_and_answer(fake_discord: FakeDiscord, parts):
    _, service = parts
    async with running_bot(fake_discord, service):
        await fake_discord.autocomplete("passage", "query", "学而时习")
        await fake_discord.wait_until(lambda: len(fake_discord.autocompletes) == 1)
        await fake_discord.autocomplete("passage", "query", "🙂")
        await fake_discord.wait_until(lambda: len(fake_discord.autocompletes) == 2)
        inter = await fake_discord.slash("passage", {"query": "lunyu:1.1"})
        await fake_discord.wait_until(
            lambda: "《论语·学而》第1章" in (fake_discord.original(inter["token"]) or {}).get("content", "")
        )
    choices = fake_discord.autocompletes[0]
    assert (
        1 <= len(choices) <= 10 and choices[0]["value"] == "lunyu:1.1" and all(len(c["name"]) <= 100 for c in choices)
    )
    assert fake_discord.autocompletes[1] == []
    answer = fake_discord.original(inter["token"])["content"]
    assert answer.startswith("子曰：“学而时习之") and answer.endswith("-# 《论语·学而》第1章 · lunyu:1.1")


async def test_a_forward_in_a_dm_is_answered_about_the_forwarded_words(fake_discord: FakeDiscord, fake_llm, parts):
    _, service = parts
    fake_llm.reply_text("此诗言君子好逑。")
    data = p.message(
        message_id=p.snowflake(), channel_id=fake_discord.dm_channel_id, author=fake_discord.human, content=""
    )
    data["message_reference"] = {"type": 1, "message_id": p.snowflake(), "channel_id": p.snowflake()}
    snapshot = {"type": 0, "content": "关关雎鸠，在河之洲", "embeds": [], "attachments": [], "timestamp": p.now_iso()}
    data["message_snapshots"] = [{"message": {**snapshot, "edited_timestamp": None, "flags": 0}}]
    async with running_bot(fake_discord, service):
        await fake_discord.dispatch("MESSAGE_CREATE", data)
        await eventually(lambda: bool(fake_llm.requests))
        await eventually(lambda: not service.admission.running.is_running(1))
    content = last_user_content(fake_llm)
    assert '<quoted from="某人 someone" source="forward">\n关关雎鸠，在河之洲\n</quoted>' in content
    assert "请看这条转发的消息。" in content
