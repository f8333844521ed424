"""A reaction on any of Fuzi's answers in Telegram is feedback on it: real PTB ↔ the fake Bot API, the
real engine over SQLite ↔ the fake OpenAI server (and the fake transcription endpoint for voice).

Photos are read by an OCR engine that takes as long as a real one does on a real photo (most of a
second, past the 0.3 s after which the placeholder shows), so the answer's first message exists
before its reply row does.
"""

from __future__ import annotations

import asyncio
import io
import time
from datetime import UTC, datetime, timedelta

import pytest_asyncio

from core.llm.client import OpenAIChatClient
from core.media.intake import MediaIntake
from core.media.ocr import PageReader
from core.media.stt import OpenAITranscriber
from core.shown_in import ShownIn
from core.storage.repos import Storage
from tests.fakes.openai_server import FakeOpenAI, fake_llm  # noqa: F401
from tests.fakes.stt_server import FakeTranscriber
from tests.fakes.telegram_api import BOT_USERNAME, FakeTelegram
from tests.fakes.telegram_media import photo, reaction
from tests.helpers_engine import make_service, sqlite_storage
from tests.helpers_telegram import running_bot

PAGE = "子贡曰：夫子之文章，可得而闻也；夫子之言性与天道，不可得而闻也。"
ANSWER = "此言夫子之教：文章可闻，性与天道则罕言之。"
OCR_S = 0.8
GROUP = -100555


class SlowPage:
    """An OCR engine that finds `PAGE` on any photo, in `OCR_S` seconds (a real one takes about that)."""

    name = "slow"

    def read(self, image) -> list[str]:
        time.sleep(OCR_S)
        return [PAGE]


def blank_photo() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (800, 600), "white").save(out, "JPEG")
    return out.getvalue()


@pytest_asyncio.fixture
async def stt():
    async with FakeTranscriber() as fake:
        yield fake


@pytest_asyncio.fixture
async def fuzi(tmp_path, fake_llm: FakeOpenAI, stt: FakeTranscriber):
    storage = sqlite_storage(tmp_path)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="fake-model", timeout_s=5)
    intake = MediaIntake(PageReader(SlowPage()), OpenAITranscriber(stt.base_url, "k", "whisper-1"))
    return storage, make_service(storage, llm=llm, media=intake)


async def verdicts(storage: Storage, count: int, timeout: float = 5.0) -> list[tuple[str, str, str]]:
    """(account, verdict, answer) of the stored verdicts, once there are `count` of them (or the timeout)."""
    found: list[tuple[str, str, str]] = []
    for _ in range(int(timeout / 0.05)):
        entries = await storage.feedback.since(datetime.now(UTC) - timedelta(hours=1))
        found = [(e.account, e.verdict, e.answer) for e in reversed(entries)]
        if len(found) >= count:
            break
        await asyncio.sleep(0.05)
    return found


async def answered(tg: FakeTelegram, storage: Storage, chat: int, text: str, count: int = 1) -> list[int]:
    """The ids of the messages showing `text` (`count` of them), once each is known to show an answer:
    a person reacts seconds later, a test at once."""
    await tg.wait_for(lambda: sum(text in m.text for m in tg.messages_in(chat)) >= count, timeout=20)
    ids = [m.message_id for m in tg.messages_in(chat) if text in m.text]
    for message_id in ids:
        await rateable(storage, ShownIn("telegram", str(chat), message_id))
    return ids


async def rateable(storage: Storage, where: ShownIn) -> str:
    """The trace of the answer shown in `where`, once its reply ended (fails after a few seconds)."""
    for _ in range(100):
        if trace := await storage.feedback.reply_at(where):
            return trace
        await asyncio.sleep(0.05)
    raise AssertionError(f"{where} never maps to an answer")


async def test_a_reaction_on_the_answer_to_a_dm_photo_is_feedback(tg, fuzi, fake_llm):
    storage, service = fuzi
    fake_llm.reply_text(ANSWER)
    async with running_bot(tg, service):
        photo(tg, 1, blank_photo())
        (answer,) = await answered(tg, storage, 1, ANSWER)
        reaction(tg, 1, answer, "👍", user_id=1)
        assert await verdicts(storage, 1) == [("telegram:1", "up", ANSWER)]


async def test_a_reaction_on_the_answer_to_a_group_photo_with_a_caption_is_feedback(tg, fuzi, fake_llm):
    storage, service = fuzi
    fake_llm.reply_text(ANSWER)
    async with running_bot(tg, service):
        photo(tg, GROUP, blank_photo(), chat_type="supergroup", caption=f"@{BOT_USERNAME} 这是哪一篇？", user_id=7)
        (answer,) = await answered(tg, storage, GROUP, ANSWER)
        reaction(tg, GROUP, answer, "👎", user_id=7, chat_type="supergroup")
        assert await verdicts(storage, 1) == [("telegram:7", "down", ANSWER)]
