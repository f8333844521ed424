"""A reaction on any of Fuzi's answers in Telegram is feedback on it, whatever path produced the answer:
real PTB ↔ the fake Bot API, the real engine over SQLite ↔ the fake OpenAI server (and the fake
transcription endpoint for voice), the real scheduler for a daily passage.

Photos are read by an OCR engine that takes as long as a real one (tests/media_images.py
`SlowReader`), voice is heard as slowly as a real endpoint hears it: the answer's first message (the
placeholder) exists before its reply row does.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, time, timedelta

import pytest_asyncio

from adapters.telegram.app import scheduled_poster
from adapters.telegram.settings import TelegramSettings
from core.llm.client import OpenAIChatClient
from core.media.intake import MediaIntake
from core.media.ocr import PageReader
from core.media.stt import OpenAITranscriber
from core.schedule.passage import DailyPassage
from core.schedule.ports import ChatSchedule, Posters
from core.schedule.scheduler import Scheduler
from core.schedule.store import ClaimRepo, RotationRepo
from core.shown_in import ShownIn
from core.skills import SkillRegistry
from core.storage.repos import Storage
from tests.fakes.openai_server import FakeOpenAI, fake_llm  # noqa: F401
from tests.fakes.stt_server import FakeTranscriber
from tests.fakes.telegram_api import BOT_USERNAME, TOKEN, FakeTelegram
from tests.fakes.telegram_media import photo, reaction, voice
from tests.helpers_engine import make_service, sqlite_storage
from tests.helpers_reactions import ANSWER, PAGE, fuzi, rateable, stt, verdicts  # noqa: F401
from tests.helpers_schedule import DictSettings, FakeClock, tiny_passages, utc
from tests.helpers_telegram import running_bot
from tests.media_images import blank_photo

GROUP = -100555
# three paragraphs of about 2,750 characters: three Telegram messages of at most 4,096
LONG = "\n\n".join(f"第{n}段：" + "学而时习之，不亦说乎？" * 250 for n in range(1, 4))


async def answered(tg: FakeTelegram, storage: Storage, chat: int, text: str) -> int:
    """The message showing `text`, once it is known to show an answer: a person reacts seconds later,
    a test at once."""
    await tg.wait_for(lambda: any(text in m.text for m in tg.messages_in(chat)), timeout=20)
    (message_id,) = [m.message_id for m in tg.messages_in(chat) if text in m.text]
    await rateable(storage, ShownIn("telegram", str(chat), message_id))
    return message_id


async def test_the_answer_to_a_dm_photo(tg, fuzi, fake_llm):
    storage, service = fuzi
    fake_llm.reply_text(ANSWER)
    async with running_bot(tg, service):
        photo(tg, 1, blank_photo())
        answer = await answered(tg, storage, 1, ANSWER)
        reaction(tg, 1, answer, "👍", user_id=1)
        ((account, verdict, trace),) = await verdicts(storage, 1)
    assert (account, verdict) == ("telegram:1", "up")
    (entry,) = await storage.feedback.since(datetime.now(UTC) - timedelta(hours=1))
    assert entry.trace_id == trace and entry.answer == ANSWER and PAGE in entry.question


async def test_the_answer_to_a_dm_photo_with_a_caption(tg, fuzi, fake_llm):
    storage, service = fuzi
    fake_llm.reply_text(ANSWER)
    async with running_bot(tg, service):
        photo(tg, 2, blank_photo(), caption="这段说什么？")
        answer = await answered(tg, storage, 2, ANSWER)
        reaction(tg, 2, answer, "👎", user_id=2)
        assert [v[:2] for v in await verdicts(storage, 1)] == [("telegram:2", "down")]
    (entry,) = await storage.feedback.since(datetime.now(UTC) - timedelta(hours=1))
    assert "这段说什么？" in entry.question


async def test_the_answer_to_a_group_photo(tg, fuzi, fake_llm):
    storage, service = fuzi
    fake_llm.reply_text(ANSWER)
    async with running_bot(tg, service):
        photo(tg, GROUP, blank_photo(), chat_type="supergroup", caption=f"@{BOT_USERNAME} 这是哪一篇？", user_id=7)
        answer = await answered(tg, storage, GROUP, ANSWER)
        reaction(tg, GROUP, answer, "🔥", user_id=8, chat_type="supergroup")
        assert [v[:2] for v in await verdicts(storage, 1)] == [("telegram:8", "up")]


async def test_the_answer_to_a_voice_message(tg, fuzi, fake_llm, stt):
    storage, service = fuzi
    stt.say("巧言令色鲜矣仁")
    stt.take(0.8)  # heard after the placeholder shows, as from a real endpoint
    fake_llm.reply_text(ANSWER)
    async with running_bot(tg, service):
        voice(tg, 3, b"OggS" + bytes(500), duration=3)
        answer = await answered(tg, storage, 3, ANSWER)
        assert "巧言令色鲜矣仁" in tg.messages[(3, answer)].text  # what was heard heads the answer
        reaction(tg, 3, answer, "👍", user_id=3)
        assert [v[:2] for v in await verdicts(storage, 1)] == [("telegram:3", "up")]


async def test_every_part_of_a_split_answer(tg, fuzi, fake_llm):
    storage, service = fuzi
    fake_llm.reply_text(LONG)
    async with running_bot(tg, service):
        tg.private_text(4, "何为学？")
        await tg.wait_for(lambda: any(m.text.startswith("第3段") for m in tg.messages_in(4)), timeout=30)
        parts = [m.message_id for m in tg.messages_in(4)]
        assert len(parts) == 3
        traces = {await rateable(storage, ShownIn("telegram", "4", part)) for part in parts}
        for user, (part, emoji) in enumerate(zip(parts, ("👍", "👎", "❤️"), strict=True), start=4):
            reaction(tg, 4, part, emoji, user_id=user)
        found = await verdicts(storage, 3)
    assert sorted(v[:2] for v in found) == [("telegram:4", "up"), ("telegram:5", "down"), ("telegram:6", "up")]
    assert {v[2] for v in found} == traces and len(traces) == 1  # all three are about the one answer


async def test_a_daily_passage_and_its_reactions(tg, fuzi):
    storage, service = fuzi
    async with running_bot(tg, service) as app:
        posters = Posters()
        posters.register("telegram", scheduled_poster(app, TelegramSettings(bot_token=TOKEN, api_base_url=tg.base_url)))
        daily = DailyPassage(tiny_passages(), RotationRepo(storage.engine), SkillRegistry(), None)
        chat = ChatSchedule(f"telegram:{GROUP}", daily_at=time(8, 0), zone="Asia/Shanghai", is_group=True)
        scheduler = Scheduler(
            DictSettings(chat),
            ClaimRepo(storage.engine),
            daily,
            posters,
            messages=storage.messages,
            replies=storage.replies,
            now=FakeClock(utc(2026, 12, 2, 0, 0)).now,
        )
        await asyncio.gather(*await scheduler.scan())
        (post,) = tg.messages_in(GROUP)
        await rateable(storage, ShownIn("telegram", str(GROUP), post.message_id))
        reaction(tg, GROUP, post.message_id, "👍", user_id=9, chat_type="supergroup")
        assert [v[:2] for v in await verdicts(storage, 1)] == [("telegram:9", "up")]
    (entry,) = await storage.feedback.since(datetime.now(UTC) - timedelta(hours=1))
    assert entry.question == "" and entry.answer.startswith("【每日一章】")  # feedback on the post itself
