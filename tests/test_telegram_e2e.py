"""End to end: real PTB ↔ fake Bot API, real ChatService over SQLite ↔ fake OpenAI server."""

from __future__ import annotations

import pytest_asyncio

from core.llm.client import OpenAIChatClient
from core.texts import say
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_engine import make_service, sqlite_storage
from tests.helpers_telegram import running_bot

ANSWER = "子曰：学而时习之，不亦说乎？有朋自远方来，不亦乐乎？人不知而不愠，不亦君子乎？"


def engine_for(tmp_path, fake_llm):
    storage = sqlite_storage(tmp_path)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="fake-model", timeout_s=5)
    return storage, make_service(storage, llm=llm)


async def test_dm_streams_the_real_engine_answer(tmp_path, fake_llm, tg):
    storage, service = engine_for(tmp_path, fake_llm)
    fake_llm.stream_text(ANSWER, chunk=3, chunk_delay=0.06)
    async with running_bot(tg, service):
        tg.private_text(1, "何为学？")
        await tg.wait_for(lambda: any(m.text == ANSWER for m in tg.messages_in(1)), timeout=20)
        # a final identical to the last preview is "not modified" for Telegram: nothing more to send
    (message,) = tg.messages_in(1)
    assert message.text == ANSWER and len(message.history) >= 2  # previews, then the final
    rows = await storage.messages.recent("telegram:1", 5)
    assert [(r.role, r.status) for r in rows] == [("user", "ok"), ("assistant", "ok")]


async def test_skill_button_switches_and_persists(tmp_path, fake_llm, tg):
    storage, service = engine_for(tmp_path, fake_llm)
    choices = service.skills()
    assert len(choices) >= 2
    async with running_bot(tg, service):
        tg.private_text(2, "/skill")
        await tg.wait_for(lambda: tg.messages_in(2))
        keyboard = tg.messages_in(2)[0].reply_markup["inline_keyboard"]
        target_name, target_display = choices[1]
        button = next(row[0] for row in keyboard if row[0]["callback_data"].endswith(target_name))
        assert target_display in button["text"]
        tg.callback(2, tg.messages_in(2)[0].message_id, button["callback_data"], user_id=2)
        await tg.wait_for(lambda: len(tg.messages_in(2)) == 2)
    assert (await storage.settings.fresh("telegram:2")).skill == target_name
    assert tg.calls_to("answerCallbackQuery")


async def test_cancel_stops_the_real_engine_reply(tmp_path, fake_llm, tg):
    storage, service = engine_for(tmp_path, fake_llm)
    fake_llm.stream_text(ANSWER * 4, chunk=2, chunk_delay=0.05)
    async with running_bot(tg, service):
        tg.private_text(3, "何为学？")
        await tg.wait_for(lambda: any(len(m.text) > 6 for m in tg.messages_in(3)), timeout=20)
        tg.private_text(3, "/cancel")
        await tg.wait_for(lambda: any(m.text.endswith("（已停止）") for m in tg.messages_in(3)), timeout=20)
        await tg.wait_for(lambda: any(m.text == say("CANCELLED", None) for m in tg.messages_in(3)), timeout=20)
    stopped = next(m for m in tg.messages_in(3) if m.text.endswith("（已停止）"))
    shown = stopped.text.removesuffix("（已停止）")
    assert shown and (ANSWER * 4).startswith(shown) and len(shown) < len(ANSWER * 4)
    rows = await storage.messages.recent("telegram:3", 5)
    assert ("assistant", "cancelled") in [(r.role, r.status) for r in rows]
