"""The Telegram adapter streaming replies: real PTB over HTTP against the fake Bot API."""

from __future__ import annotations

import re
import time

import pytest_asyncio

from adapters.common.render import compose
from adapters.telegram.handlers import PLACEHOLDER
from core.events import Citation, FinalReply, Notice, TextDelta
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_telegram import running_bot


def streamed(text: str, every: float, size: int = 6) -> list:
    steps: list = []
    for i in range(0, len(text), size):
        steps += [every, TextDelta(text[i : i + size])]
    return steps


def final_message(tg: FakeTelegram, chat_id: int, suffix: str):
    messages = tg.messages_in(chat_id)
    return messages if messages and messages[-1].text.endswith(suffix) else None


ANSWER = "子曰：“管仲之器小哉！”[1] 管仲不知礼，故夫子小之。仁者爱人，知者知人。" * 2
CITES = (Citation(1, "lunyu:3.22", "《论语·八佾》第22章"),)


async def test_dm_question_placeholder_edits_final_with_footnotes(tg):
    engine = ScriptedEngine()
    engine.queue(1.2, *streamed(ANSWER, 0.05), FinalReply(ANSWER, CITES))  # 1.2 s of "thinking"
    async with running_bot(tg, engine):
        asked = time.monotonic()
        tg.private_text(1, "管仲如何？")
        await tg.wait_for(lambda: final_message(tg, 1, "第22章"))
    calls = [c for c in tg.chat_calls(1) if c.status == 200]
    assert calls[0].method == "sendMessage"  # the placeholder is the first request, no "typing" before it
    assert calls[0].params["text"] == PLACEHOLDER == "翻检典籍中…"
    assert calls[0].t - asked < 0.8  # visible after the 0.3 s grace, long before the answer
    assert "sendChatAction" not in [c.method for c in calls]  # the placeholder says it; 1.2 s is no silence
    edits = [c for c in calls if c.method == "editMessageText"]
    assert len(edits) >= 3 and edits[-1].params.get("parse_mode") == "HTML"
    assert all("parse_mode" not in c.params for c in edits[:-1])  # previews are plain text
    (message,) = tg.messages_in(1)
    assert message.text == compose(FinalReply(ANSWER, CITES))
    assert message.history[1:-1] and all(ANSWER.startswith(t) for t in message.history[1:-1])
    seen = engine.received[0]
    assert (seen.platform, seen.chat_id, seen.user_id, seen.text, seen.is_group, seen.command) == (
        "telegram",
        "1",
        "1",
        "管仲如何？",
        False,
        None,
    )


async def test_edits_respect_private_interval_and_one_in_flight(tg):
    tg.latency = 0.05
    engine = ScriptedEngine()
    engine.queue(*streamed(ANSWER * 2, 0.02, 3), FinalReply(ANSWER * 2))
    async with running_bot(tg, engine, edit_interval_private_s=0.3):
        tg.private_text(5, "问")
        await tg.wait_for(lambda: final_message(tg, 5, ANSWER[-5:]))
    times = [c.t for c in tg.chat_calls(5)]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= 0.3 + 0.05 - 0.01  # interval counted from the end of the previous request


async def test_rate_limited_edit_pauses_chat_and_final_arrives_exactly(tg):
    engine = ScriptedEngine()
    engine.queue(0.3, *streamed(ANSWER, 0.05), FinalReply(ANSWER, CITES))
    tg.flood("editMessageText", chat_id=2, retry_after=1)
    async with running_bot(tg, engine):
        tg.private_text(2, "管仲如何？")
        await tg.wait_for(lambda: final_message(tg, 2, "第22章"), timeout=15)
    refused = [c for c in tg.chat_calls(2) if c.status == 429]
    assert len(refused) == 1
    after = [c for c in tg.chat_calls(2) if c.t > refused[0].t]
    assert after and min(c.t for c in after) >= refused[0].t + 1.0
    assert tg.messages_in(2)[-1].text == compose(FinalReply(ANSWER, CITES))


async def test_long_answer_is_split_in_order_with_balanced_fences(tg):
    code = "```python\n" + "\n".join(f"total += value_{i} * 2  # step {i} <ok>" for i in range(120)) + "\n```"
    paragraphs = [f"第{i}段：" + "君子务本，本立而道生。" * 18 for i in range(40)]
    text = "\n\n".join(paragraphs[:20] + [code] + paragraphs[20:])
    assert len(text) >= 10_000
    engine = ScriptedEngine()
    engine.queue(TextDelta(text[:300]), 0.5, FinalReply(text))
    async with running_bot(tg, engine):
        tg.private_text(3, "长答")
        await tg.wait_for(lambda: final_message(tg, 3, paragraphs[-1][-10:]), timeout=20)
    messages = tg.messages_in(3)
    assert len(messages) >= 3
    assert all(m.parse_mode == "HTML" for m in messages)  # every part parsed: fences balanced
    assert all(m.source.count("<pre") == m.source.count("</pre>") for m in messages)
    visible = "".join(m.text for m in messages)
    expected = re.sub(r"```(python)?\n?", "", text)
    assert re.sub(r"\s+", "", visible) == re.sub(r"\s+", "", expected)
    code_parts = [m for m in messages if "total +=" in m.text]
    assert len(code_parts) >= 2 and all('<code class="language-python">' in m.source for m in code_parts)


async def test_parse_rejection_is_resent_plain(tg):
    engine = ScriptedEngine()
    engine.queue(FinalReply("**仁**者爱人 <b>", CITES))
    tg.reject_parse(1)
    async with running_bot(tg, engine):
        tg.private_text(4, "仁")
        await tg.wait_for(lambda: final_message(tg, 4, "第22章"))
    (message,) = tg.messages_in(4)
    assert message.parse_mode is None and message.text == compose(FinalReply("**仁**者爱人 <b>", CITES))
    assert [c.status for c in tg.calls_to("sendMessage", 4)] == [400, 200]


async def test_two_chats_streaming_at_once_never_interleave(tg):
    a, b = "甲" * 150 + "完", "乙" * 150 + "毕"
    engine = ScriptedEngine()
    engine.on_text("问甲", *streamed(a, 0.03, 5), FinalReply(a))
    engine.on_text("问乙", *streamed(b, 0.03, 5), FinalReply(b))
    async with running_bot(tg, engine):
        tg.private_text(10, "问甲")
        tg.private_text(11, "问乙")
        await tg.wait_for(lambda: final_message(tg, 10, "完") and final_message(tg, 11, "毕"), timeout=15)
    for chat, text in ((10, a), (11, b)):
        (message,) = tg.messages_in(chat)
        assert message.text == text
        assert all(text.startswith(h) or h == PLACEHOLDER for h in message.history)
    windows = [(min(c.t for c in tg.chat_calls(x)), max(c.t for c in tg.chat_calls(x))) for x in (10, 11)]
    assert windows[0][0] < windows[1][1] and windows[1][0] < windows[0][1]  # they really overlapped


async def test_cancel_stops_running_reply(tg):
    engine = ScriptedEngine()
    engine.on_text("长问题", *streamed("学而时习之，不亦说乎？" * 30, 0.1, 4), FinalReply("never"))
    async with running_bot(tg, engine):
        tg.private_text(6, "长问题")
        await tg.wait_for(lambda: any(len(m.text) > 10 for m in tg.messages_in(6)))
        tg.private_text(6, "/cancel")
        await tg.wait_for(lambda: any(m.text.endswith("（已停止）") for m in tg.messages_in(6)))
        await tg.wait_for(lambda: any(m.text == "已停止当前回答。" for m in tg.messages_in(6)))
    stopped = next(m for m in tg.messages_in(6) if m.text.endswith("（已停止）"))
    assert "学而时习之" in stopped.text and "never" not in stopped.text
    assert [i.command for i in engine.received] == [None, "cancel"]
    assert engine.finished  # the engine's generator ran to its end


async def test_second_message_while_busy_gets_notice(tg):
    engine = ScriptedEngine()
    engine.on_text("一", *streamed("回答" * 40, 0.05, 4), FinalReply("回答" * 40))
    async with running_bot(tg, engine):
        tg.private_text(7, "一")
        await tg.wait_for(lambda: tg.messages_in(7))
        tg.private_text(7, "二")
        await tg.wait_for(lambda: any("请稍候" in m.text for m in tg.messages_in(7)))
        await tg.wait_for(lambda: any(m.text == "回答" * 40 for m in tg.messages_in(7)))
    assert [m.text for m in tg.messages_in(7)] == ["回答" * 40, "上一条还在回答中，请稍候。"]


async def test_engine_failure_apologizes_with_trace_and_polling_continues(tg):
    def broken() -> None:
        raise RuntimeError("database password is hunter2")

    engine = ScriptedEngine(default=[Notice("好的", reason="command")])
    engine.on_text("坏", broken)
    async with running_bot(tg, engine):
        tg.private_text(8, "坏")
        await tg.wait_for(lambda: tg.messages_in(8))
        tg.private_text(8, "好")
        await tg.wait_for(lambda: len(tg.messages_in(8)) == 2)
    apology, ok = tg.messages_in(8)
    assert engine.received[0].trace_id in apology.text and "hunter2" not in apology.text
    assert ok.text == "好的"
