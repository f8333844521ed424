"""Delivery that retries what is transient: 5xx and network errors on Telegram sends and edits.

Real PTB against the fake Bot API; the final edit (or send) fails once with a 5xx and still arrives,
exactly; a chat that stays down gets the reply recorded as "undelivered" in the database.
"""

from __future__ import annotations

import pytest_asyncio

from adapters.common.render import compose
from core.events import Citation, FinalReply, TextDelta
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_engine import incoming, make_service, sqlite_storage
from tests.helpers_telegram import running_bot

ANSWER = "子曰：“管仲之器小哉！”[1] 管仲不知礼，故夫子小之。"
CITES = (Citation(1, "lunyu:3.22", "《论语·八佾》第22章"),)


def is_final(call) -> bool:
    return call.params.get("parse_mode") == "HTML"


def streamed(text: str, every: float = 0.05, size: int = 6) -> list:
    steps: list = []
    for i in range(0, len(text), size):
        steps += [every, TextDelta(text[i : i + size])]
    return steps


async def test_a_5xx_on_the_final_edit_is_retried_and_the_final_arrives(tg):
    engine = ScriptedEngine()
    engine.queue(0.4, *streamed(ANSWER), FinalReply(ANSWER, CITES))
    tg.fail("editMessageText", status=502, when=is_final)
    async with running_bot(tg, engine):
        tg.private_text(1, "管仲如何？")
        await tg.wait_for(lambda: engine.deliveries, timeout=15)
    (message,) = tg.messages_in(1)
    assert message.text == compose(FinalReply(ANSWER, CITES))
    finals = [c for c in tg.calls_to("editMessageText", 1) if is_final(c)]
    assert [c.status for c in finals] == [502, 200]
    assert engine.deliveries == [(engine.received[0].trace_id, True)]


async def test_a_500_on_the_final_send_is_retried(tg):
    engine = ScriptedEngine()
    engine.queue(FinalReply(ANSWER, CITES))  # instant answer: the final text is a new message
    tg.fail("sendMessage", status=500, when=is_final, times=2)
    async with running_bot(tg, engine):
        tg.private_text(2, "管仲如何？")
        await tg.wait_for(lambda: engine.deliveries, timeout=15)
    assert [m.text for m in tg.messages_in(2)] == [compose(FinalReply(ANSWER, CITES))]
    assert engine.deliveries[0][1] is True


async def test_a_chat_that_stays_down_is_reported_undelivered(tg):
    engine = ScriptedEngine()
    engine.queue(FinalReply(ANSWER, CITES))
    tg.fail("sendMessage", status=502, when=is_final, times=20)
    async with running_bot(tg, engine):
        tg.private_text(3, "管仲如何？")
        await tg.wait_for(lambda: engine.deliveries, timeout=30)
    assert engine.deliveries == [(engine.received[0].trace_id, False)]
    assert len([c for c in tg.calls_to("sendMessage", 3) if is_final(c)]) == 6  # max_final_attempts


async def test_the_database_records_an_undelivered_final(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)  # no LLM: an L2 answer
    message = incoming("管仲之器小哉")
    events = [e async for e in service.handle(message)]
    assert events[-1].kind == "final"
    await service.record_delivery(message.trace_id, True)
    rows = await storage.messages.recent("console:c1", 5)
    assert [(r.role, r.status) for r in rows] == [("user", "ok"), ("assistant", "ok")]
    await service.record_delivery(message.trace_id, False)
    rows = await storage.messages.recent("console:c1", 5)
    assert [(r.role, r.status) for r in rows] == [("user", "ok"), ("assistant", "undelivered")]
