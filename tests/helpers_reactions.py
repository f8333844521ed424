"""What the reaction tests on every platform share: the real engine over SQLite that reads photos as
slowly as a real OCR engine and hears voice through the fake transcription endpoint, and waiting until
a platform message maps to an answer."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest_asyncio

from core.llm.client import OpenAIChatClient
from core.media.intake import MediaIntake
from core.media.ocr import PageReader
from core.media.stt import OpenAITranscriber
from core.shown_in import ShownIn
from core.storage.repos import Storage
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.stt_server import FakeTranscriber
from tests.helpers_engine import make_service, sqlite_storage
from tests.media_images import SlowReader

PAGE = "子贡曰：夫子之文章，可得而闻也；夫子之言性与天道，不可得而闻也。"
ANSWER = "此言夫子之教：文章可闻，性与天道则罕言之。"


@pytest_asyncio.fixture
async def stt():
    async with FakeTranscriber() as fake:
        yield fake


@pytest_asyncio.fixture
async def fuzi(tmp_path, fake_llm: FakeOpenAI, stt: FakeTranscriber):
    storage = sqlite_storage(tmp_path)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="fake-model", timeout_s=5)
    intake = MediaIntake(PageReader(SlowReader(PAGE)), OpenAITranscriber(stt.base_url, "k", "whisper-1"))
    return storage, make_service(storage, llm=llm, media=intake)


async def rateable(storage: Storage, where: ShownIn) -> str:
    """The trace of the answer shown in `where`, once its reply ended (fails after a few seconds)."""
    for _ in range(100):
        if trace := await storage.feedback.reply_at(where):
            return trace
        await asyncio.sleep(0.05)
    raise AssertionError(f"{where} never maps to an answer")


async def verdicts(storage: Storage, count: int) -> list[tuple[str, str, str]]:
    """(account, verdict, trace) of the stored verdicts, oldest first, once there are `count`."""
    found: list[tuple[str, str, str]] = []
    for _ in range(100):
        entries = await storage.feedback.since(datetime.now(UTC) - timedelta(hours=1))
        found = [(e.account, e.verdict, e.trace_id) for e in reversed(entries)]
        if len(found) >= count:
            break
        await asyncio.sleep(0.05)
    return found
