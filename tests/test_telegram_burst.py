"""Who goes first when the bot-wide limit binds: real PTB against the flood-limited fake Bot API.

A new chat's first message (the placeholder) goes before edits of replies already visible; in a burst
every chat's placeholder goes before any edit, no "typing" is sent and no 429 comes back; in a group
the placeholder, not "typing", takes the first of its 20 requests a minute.
"""

from __future__ import annotations

import time

from adapters.common.render import compose
from adapters.telegram.handlers import PLACEHOLDER
from core.events import FinalReply, TextDelta, ToolStep
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import BOT_USERNAME, FakeTelegram, FloodLimits
from tests.helpers_telegram import running_bot

LONG = "学而时习之，不亦说乎？有朋自远方来，不亦乐乎？" * 6


def streamed(text: str, every: float, size: int = 4) -> list:
    steps: list = []
    for i in range(0, len(text), size):
        steps += [every, TextDelta(text[i : i + size])]
    return steps


def finished(tg: FakeTelegram, chats, text: str) -> bool:
    return all([m.text for m in tg.messages_in(c)] == [text] for c in chats)


async def test_new_chats_placeholder_goes_before_pending_edits():
    busy = [1, 2, 3, 4, 5, 6]
    engine = ScriptedEngine()
    for chat in busy:
        engine.on_text(f"问{chat}", *streamed(LONG, 0.15), FinalReply(LONG))  # ~5 s of words
    engine.on_text("新问", 2.0, FinalReply("答"))
    async with FakeTelegram(limits=FloodLimits()) as tg:
        async with running_bot(tg, engine, requests_per_s=2, edit_interval_private_s=1.0) as app:
            limiter = app.bot.rate_limiter
            for chat in busy:
                tg.private_text(chat, f"问{chat}")
            await tg.wait_for(lambda: all(tg.messages_in(c) for c in busy) and limiter.queued >= 4, timeout=10)
            waiting = limiter.queued  # edits of visible replies, each 0.5 s apart at 2 a second
            asked = time.monotonic()
            tg.private_text(9, "新问")
            await tg.wait_for(lambda: tg.chat_calls(9), timeout=10)
            placeholder = tg.chat_calls(9)[0]
            await tg.wait_for(
                lambda: finished(tg, busy, compose(FinalReply(LONG))) and finished(tg, [9], "答"), timeout=30
            )
    assert placeholder.method == "sendMessage" and placeholder.params["text"] == PLACEHOLDER
    # grace 0.3 s + at most one slot (0.5 s) in flight; behind the queued edits it would be ≥ 2 s
    assert waiting >= 4 and placeholder.t - asked < 0.3 + 0.5 + 0.4
    assert tg.retry_after_429s == 0, (
        tg.refused_by_limit,
        [(c.chat_id, c.method, c.status, round(c.t, 2)) for c in tg.calls if c.status != 200],
    )


async def test_burst_all_placeholders_before_any_edit_no_typing_no_429():
    privates, groups = list(range(101, 109)), [-201, -202, -203, -204]
    engine = ScriptedEngine()
    for chat in privates + groups:
        steps = [1.0, ToolStep("search_classics", "start"), *streamed(LONG, 0.08), FinalReply(LONG)]
        engine.on_text(f"问{chat}", *steps)  # the answer is ready after ~4 s, the placeholders need 2
    async with FakeTelegram(limits=FloodLimits(overall_per_second=8), latency=0.01) as tg:
        async with running_bot(tg, engine, requests_per_s=6, edit_interval_private_s=0.3):
            for chat in privates:
                tg.private_text(chat, f"问{chat}")
            for chat in groups:
                tg.group_text(chat, f"@{BOT_USERNAME} 问{chat}", user_id=-chat)
            await tg.wait_for(lambda: finished(tg, privates + groups, compose(FinalReply(LONG))), timeout=40)
    chat_calls = [c for c in tg.calls if c.chat_id is not None]
    firsts = [c for c in chat_calls if c.method == "sendMessage"]
    assert len(firsts) == 12 and all(c.params["text"] == PLACEHOLDER for c in firsts)
    first_edit = min(c.t for c in chat_calls if c.method == "editMessageText")
    assert max(c.t for c in firsts) < first_edit  # every chat sees something before anyone's next edit
    assert not tg.calls_to("sendChatAction")  # under pressure "typing" is never sent
    assert tg.retry_after_429s == 0, (
        tg.refused_by_limit,
        [(c.chat_id, c.method, c.status, round(c.t, 2)) for c in tg.calls if c.status != 200],
    )


async def test_group_spends_no_request_on_typing_once_its_reply_shows():
    steps = [*streamed(LONG[:20], 0.02), ToolStep("search_classics", "start"), 1.5]
    steps += [ToolStep("search_classics", "end", ok=True), *streamed(LONG[20:], 0.02), FinalReply(LONG)]
    engine = ScriptedEngine()
    engine.on_text("问", *steps)
    engine.on_text(f"@{BOT_USERNAME} 问", *steps)
    async with FakeTelegram() as tg:
        async with running_bot(tg, engine, edit_interval_private_s=0.2, edit_interval_group_s=0.4):
            tg.group_text(-300, f"@{BOT_USERNAME} 问")
            tg.private_text(300, "问")
            await tg.wait_for(lambda: finished(tg, [-300, 300], compose(FinalReply(LONG))), timeout=15)
    assert not tg.calls_to("sendChatAction", -300)  # a group's requests go to text
    assert tg.calls_to("sendChatAction", 300)  # a private chat still shows "typing" while tools run
