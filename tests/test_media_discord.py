"""Discord attachments, quoted images, voice messages and reactions: discord.py ↔ the fake Discord
(gateway, REST and CDN), the real engine over SQLite with RapidOCR, a fake transcription endpoint."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime, timedelta

import pytest

from adapters.common.metrics import FuziMetrics, ObservedEngine
from core.media.intake import MediaIntake
from core.media.ocr import PageReader
from core.media.stt import OpenAITranscriber
from core.shown_in import ShownIn
from tests.fakes.discord_media import attachment, message_with, react
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.stt_server import FakeTranscriber
from tests.helpers_discord import running_bot
from tests.helpers_engine import CorpusRetriever, make_service, sqlite_storage
from tests.media_images import Look, fonts_available, render_page

pytestmark = [
    pytest.mark.ocr,
    pytest.mark.skipif(
        not fonts_available() and os.environ.get("CI") != "true", reason="fonts-noto-cjk missing (scripts/setup-media)"
    ),
]

PAGE = "子贡曰：“夫子之文章，可得而闻也；夫子之言性与天道，不可得而闻也。”"
REF = "公冶长"


@pytest.fixture(scope="module")
def rapid():
    from core.media.ocr_rapid import RapidReader

    return RapidReader(threads=2)


def engine_for(tmp_path, rapid, transcriber=None):
    storage = sqlite_storage(tmp_path)
    metrics = FuziMetrics()
    intake = MediaIntake(PageReader(rapid), transcriber)
    return storage, metrics, ObservedEngine(make_service(storage, retriever=CorpusRetriever(), media=intake), metrics)


def page_jpeg() -> bytes:
    return render_page(PAGE, Look("bold", 40, -2.0, 0.7, 60))


def contents(fake: FakeDiscord, channel: str) -> list[str]:
    return [m.get("content") or "" for m in fake.channel_messages(channel)]


async def until(fake: FakeDiscord, condition, timeout: float = 60.0) -> None:
    await fake.wait_until(condition, timeout=timeout)


async def test_dm_image_and_guild_mention_and_quoted_image(fake_discord, tmp_path, rapid):
    fake = fake_discord
    _, _, engine = engine_for(tmp_path, rapid)
    async with running_bot(fake, engine):
        await message_with(fake, "", [attachment(fake, page_jpeg(), "page.jpg", "image/jpeg")], dm=True)
        await until(fake, lambda: any(REF in c for c in contents(fake, fake.dm_channel_id)))
        channel = fake.channel["id"]
        quiet = await message_with(fake, "", [attachment(fake, page_jpeg(), "p.jpg", "image/jpeg")])
        await message_with(fake, "这段出自哪里？", [], mention_bot=True, reply_to=quiet)
        await until(fake, lambda: any(REF in c for c in contents(fake, channel)))
        await message_with(fake, "", [attachment(fake, b"%PDF-1.7\n%%EOF", "a.pdf", "application/pdf")], dm=True)
        await until(fake, lambda: any("不读此类文件" in c for c in contents(fake, fake.dm_channel_id)))
    downloads = [r for r in fake.requests if r.path.startswith("/attachments/")]
    assert len(downloads) == 2  # the quiet image was read only when quoted; the PDF never


async def test_voice_message_is_transcribed_and_reactions_are_feedback(fake_discord, tmp_path, rapid):
    fake = fake_discord
    async with FakeTranscriber() as stt:
        storage, metrics, engine = engine_for(tmp_path, rapid, OpenAITranscriber(stt.base_url, "k", "whisper-1"))
        stt.say("巧言令色鲜矣仁")
        async with running_bot(fake, engine):
            voice = attachment(fake, b"OggS" + bytes(500), "voice-message.ogg", "audio/ogg", duration_secs=3.2)
            await message_with(fake, "", [voice], dm=True, voice=True)
            await until(fake, lambda: any("🎙️「巧言令色鲜矣仁」" in c for c in contents(fake, fake.dm_channel_id)))
            answer = fake.channel_messages(fake.dm_channel_id)[0]
            await _noted(storage, ShownIn("discord", str(fake.dm_channel_id), int(answer["id"])))
            await react(fake, answer, "👎")
            await until(fake, lambda: _count(metrics, "down") == 1, timeout=10)
            await react(fake, answer, "👎", added=False)
            for _ in range(100):
                if not await storage.feedback.since(datetime.now(UTC) - timedelta(hours=1)):
                    break
                await asyncio.sleep(0.05)
    assert await storage.feedback.since(datetime.now(UTC) - timedelta(hours=1)) == []
    assert stt.requests[0].filename == "voice-message.ogg"


def _count(metrics: FuziMetrics, verdict: str) -> float:
    value = metrics.registry.get_sample_value("fuzi_reply_feedback_total", {"platform": "discord", "verdict": verdict})
    return value or 0.0


async def _noted(storage, where: ShownIn) -> None:
    for _ in range(100):
        if await storage.feedback.reply_at(where):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{where} was never recorded as showing a reply")
