"""Telegram photos, albums, quoted photos, files and reactions: real PTB ↔ the fake Bot API (getFile and
file download), the real engine over SQLite with RapidOCR, metrics through ObservedEngine."""

from __future__ import annotations

import os

import pytest
import pytest_asyncio

from adapters.common.metrics import FuziMetrics, ObservedEngine
from core.guards.limits import InMemoryRateLimiter, Quota
from core.media.intake import MediaIntake
from core.media.ocr import PageReader
from core.shown_in import ShownIn
from tests.fakes.telegram_api import BOT_USERNAME, FakeTelegram
from tests.fakes.telegram_media import document, photo, reaction, sticker
from tests.helpers_engine import CorpusRetriever, make_service, sqlite_storage
from tests.helpers_telegram import running_bot
from tests.media_images import Look, fonts_available, render_page

pytestmark = [
    pytest.mark.ocr,
    pytest.mark.skipif(
        not fonts_available() and os.environ.get("CI") != "true", reason="fonts-noto-cjk missing (scripts/setup-media)"
    ),
]

PAGE = "子贡曰：“夫子之文章，可得而闻也；夫子之言性与天道，不可得而闻也。”"
REF = "公冶长"  # 《论语·公冶长》第13章
GROUP = -100777


@pytest.fixture(scope="module")
def rapid():
    from core.media.ocr_rapid import RapidReader

    return RapidReader(threads=2)


@pytest.fixture
def bot(tmp_path, rapid):
    storage = sqlite_storage(tmp_path)
    intake = MediaIntake(PageReader(rapid), limiter=InMemoryRateLimiter(Quota(10, 30, None)))
    metrics = FuziMetrics()
    engine = ObservedEngine(make_service(storage, retriever=CorpusRetriever(), media=intake), metrics)
    return storage, engine, metrics


def page_photo() -> bytes:
    return render_page(PAGE, Look("serif", 40, 1.5, 0.8, 60))


def texts(tg, chat):
    return [m.text for m in tg.messages_in(chat)]


async def test_dm_photo_gets_the_passage_with_its_citation(tg, bot):
    storage, engine, _ = bot
    async with running_bot(tg, engine):
        photo(tg, 1, page_photo())
        await tg.wait_for(lambda: any(REF in t for t in texts(tg, 1)), timeout=60)
    assert [c.method for c in tg.calls if c.method in ("getFile", "download")] == ["getFile", "download"]
    largest = tg.calls_to("getFile")[0].params["file_id"]
    assert tg.files[largest] == page_photo() and largest != tg.calls[0].params.get("file_id")
    rows = await storage.messages.recent("telegram:1", 2)
    assert [(r.role, r.status) for r in rows] == [("user", "ok"), ("assistant", "ok")]


async def test_group_photo_needs_a_mention_or_a_reply_that_mentions_fuzi(tg, bot):
    _, engine, _ = bot
    async with running_bot(tg, engine):
        quiet = photo(tg, GROUP, page_photo(), chat_type="supergroup")
        photo(tg, GROUP, page_photo(), chat_type="supergroup", caption=f"@{BOT_USERNAME} 这是哪一篇？")
        await tg.wait_for(lambda: any(REF in t for t in texts(tg, GROUP)), timeout=60)
        tg.group_text(GROUP, f"@{BOT_USERNAME} 这段说什么？", reply_to=quiet["message"]["message_id"])
        await tg.wait_for(lambda: sum(REF in t for t in texts(tg, GROUP)) == 2, timeout=60)
    assert len(tg.calls_to("getFile")) == 2  # the unaddressed photo was read only when quoted


async def test_an_album_is_answered_once(tg, bot):
    _, engine, _ = bot
    async with running_bot(tg, engine):
        for i in range(10):
            photo(tg, 3, page_photo(), media_group_id="album-1", caption="这是哪一篇？" if i == 0 else None)
        await tg.wait_for(lambda: any(REF in t for t in texts(tg, 3)), timeout=60)
        tg.private_text(3, "还在吗")
        await tg.wait_for(lambda: len(tg.messages_in(3)) >= 2, timeout=20)
    assert sum(REF in t for t in texts(tg, 3)) == 1 and len(tg.calls_to("getFile")) == 1


async def test_pdf_and_animated_sticker_get_one_line_without_download(tg, bot):
    _, engine, _ = bot
    async with running_bot(tg, engine):
        document(tg, 4, b"%PDF-1.7\n%%EOF", "application/pdf", "lunyu.pdf")
        await tg.wait_for(lambda: tg.messages_in(4), timeout=20)
        sticker(tg, 4, animated=True)
        await tg.wait_for(lambda: len(tg.messages_in(4)) == 2, timeout=20)
    pdf, anim = texts(tg, 4)
    assert "不读此类文件" in pdf and "\n" not in pdf and "动图" in anim
    assert tg.calls_to("getFile") == []


async def test_reactions_on_answers_are_stored_counted_and_taken_back(tg, bot):
    storage, engine, metrics = bot
    async with running_bot(tg, engine):
        question = tg.private_text(5, "学而时习之")
        await tg.wait_for(lambda: tg.messages_in(5), timeout=20)
        answer = tg.messages_in(5)[0].message_id
        await _noted(storage, ShownIn("telegram", "5", answer))  # a person reacts seconds later; the test must wait
        reaction(tg, 5, answer, "👍", user_id=5)
        reaction(tg, 5, question["message"]["message_id"], "👎", user_id=5)  # the person's own message
        reaction(tg, 5, 999_999, "👎", user_id=5)  # a deleted or unknown message
        await tg.wait_for(lambda: _count(metrics, "up") == 1, timeout=10)
        reaction(tg, 5, answer, "🔥", user_id=77, chat_type="private")
        await tg.wait_for(lambda: _count(metrics, "up") == 2, timeout=10)
        reaction(tg, 5, answer, None, user_id=5, old="👍")  # taken back
        await _settle(tg)
    entries = await storage.feedback.since(_long_ago())
    assert [(e.account, e.verdict, e.emoji) for e in entries] == [("telegram:77", "up", "🔥")]
    assert entries[0].question == "学而时习之" and entries[0].level == 2
    assert _count(metrics, "down") == 0
    assert "message_reaction" in tg.calls_to("getUpdates")[0].params["allowed_updates"]


def _count(metrics: FuziMetrics, verdict: str) -> float:
    value = metrics.registry.get_sample_value("fuzi_reply_feedback_total", {"platform": "telegram", "verdict": verdict})
    return value or 0.0


async def _settle(tg) -> None:
    start = len(tg.calls_to("getUpdates"))
    await tg.wait_for(lambda: len(tg.calls_to("getUpdates")) >= start + 2, timeout=10)


async def _noted(storage, where: ShownIn) -> None:
    import asyncio

    for _ in range(100):
        if await storage.feedback.reply_at(where):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{where} was never recorded as showing a reply")


def _long_ago():
    from datetime import UTC, datetime, timedelta

    return datetime.now(UTC) - timedelta(days=1)
