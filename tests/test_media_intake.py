"""Photos and voice messages through the real engine: OCR on rendered pages, bad input, limits, voice.

The engine is the real ChatService (SQLite, the L2 retrieval answer over the corpus); OCR is the
real RapidOCR on pages rendered in Noto CJK (tests/media_images.py); voice goes to a fake
OpenAI-compatible transcription endpoint over HTTP.
"""

from __future__ import annotations

import io
import json
import os
import tempfile

import pytest
import pytest_asyncio
from PIL import Image

from core.events import Notice, TextDelta
from core.guards.limits import InMemoryRateLimiter, Quota
from core.media.clean import clean_ocr
from core.media.compose import MAX_PAGE_CHARS, PAGE_MARK
from core.media.intake import MediaIntake, MediaLimits
from core.media.ocr import PageReader
from core.media.stt import OpenAITranscriber
from core.media.texts import LINES, MediaProblem
from core.types import Media
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.stt_server import FakeTranscriber
from tests.helpers_corpus import corpus_dir
from tests.helpers_engine import CorpusRetriever, collect, final_of, incoming, make_service, sqlite_storage
from tests.media_images import Look, fonts_available, render_page

pytestmark = pytest.mark.skipif(
    not fonts_available() and os.environ.get("CI") != "true", reason="fonts-noto-cjk missing (scripts/setup-media)"
)

LUNYU_5_13 = "子贡曰：“夫子之文章，可得而闻也；夫子之言性与天道，不可得而闻也。”"


@pytest.fixture(scope="module")
def rapid():
    from core.media.ocr_rapid import RapidReader

    return RapidReader(threads=2)


def passage(pid: str) -> str:
    books = {
        "lunyu": json.loads((corpus_dir() / "lunyu.json").read_text("utf-8")),
        "shijing": json.loads((corpus_dir() / "shijing.json").read_text("utf-8")),
    }
    book, _, ref = pid.partition(":")
    if book == "lunyu":
        c, p = (int(x) for x in ref.split("."))
        return books["lunyu"][c - 1]["paragraphs"][p - 1]
    return "\n".join(books["shijing"][int(ref) - 1]["content"])


def bytes_media(data: bytes, kind="image", **kw) -> tuple[Media, list[int]]:
    fetched: list[int] = []

    async def fetch() -> bytes:
        fetched.append(len(data))
        return data

    return Media(kind, fetch, size=kw.pop("size", len(data)), **kw), fetched


@pytest_asyncio.fixture
async def engine(tmp_path, rapid):
    storage = sqlite_storage(tmp_path)
    intake = MediaIntake(PageReader(rapid), limiter=InMemoryRateLimiter(Quota(4, 30, None)))
    return storage, make_service(storage, retriever=CorpusRetriever(), media=intake)


def photo_of(text: str, **look) -> bytes:
    return render_page(text, Look(**({"size": 40, "angle": 2.0, "blur": 0.8, "quality": 60} | look)))


@pytest.mark.parametrize(
    ("pid", "look"),
    [
        ("lunyu:5.13", {"font": "sans"}),
        ("lunyu:1.1", {"font": "serif", "angle": -2.5, "size": 32}),
        ("shijing:1", {"font": "bold", "size": 48}),
        ("shijing:113", {"font": "serif", "angle": 3.0, "blur": 1.1}),
    ],
)
@pytest.mark.ocr
async def test_a_photo_of_a_page_finds_its_passage_with_the_citation(engine, pid, look):
    storage, service = engine
    media, _ = bytes_media(photo_of(passage(pid), **look))
    events = await collect(service, incoming("", media=(media,)))
    final = final_of(events)
    assert final.citations and final.citations[0].id == pid, final.citations
    rows = await storage.messages.recent("console:c1", 2)
    assert PAGE_MARK in rows[0].text and "这是哪一篇" in rows[0].text  # no caption: the default question


@pytest.mark.ocr
async def test_the_caption_is_the_question(engine):
    storage, service = engine
    media, _ = bytes_media(photo_of(LUNYU_5_13))
    final_of(await collect(service, incoming("子贡说的是什么？", media=(media,))))
    question = (await storage.messages.recent("console:c1", 2))[0].text
    assert question.startswith("子贡说的是什么？") and "夫子之文章" in question


def bomb_png() -> bytes:
    out = io.BytesIO()
    Image.new("1", (12000, 12000)).save(out, "PNG")  # 144 megapixels in a few kilobytes
    return out.getvalue()


def blank_photo() -> bytes:
    out = io.BytesIO()
    Image.linear_gradient("L").resize((1280, 960)).convert("RGB").save(out, "JPEG", quality=60)  # a wall, a sky
    return out.getvalue()


def animated_gif() -> bytes:
    out = io.BytesIO()
    frames = [Image.new("RGB", (64, 64), (i * 40, 0, 0)) for i in range(3)]
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    return out.getvalue()


@pytest.mark.parametrize(
    ("make", "kind", "problem"),
    [
        (bomb_png, "image", "too_large"),
        (lambda: photo_of(LUNYU_5_13)[:4000], "image", "corrupt"),
        (lambda: b"%PDF-1.7\n1 0 obj <<>> endobj\n%%EOF", "image", "not_image"),
        (lambda: b"%PDF-1.7\n%%EOF", "file", "not_image"),
        (animated_gif, "image", "animated"),
        (blank_photo, "image", "no_text"),
        (lambda: b"\x1f\x8b tgs", "sticker", "sticker"),
    ],
)
@pytest.mark.ocr
async def test_bad_uploads_get_one_line_and_leave_no_temp_file(engine, monkeypatch, tmp_path, make, kind, problem):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    _, service = engine
    media, _ = bytes_media(make(), kind)
    events = await collect(service, incoming("", media=(media,)))
    (notice,) = events
    assert isinstance(notice, Notice) and notice.reason == "bad_input" and notice.extra["media"] == problem
    assert "\n" not in notice.text and notice.text.startswith(LINES[problem][0].split("（")[0][:6])
    assert list(scratch.iterdir()) == []


@pytest.mark.ocr
async def test_a_50_megapixel_photo_is_read_at_a_reduced_scale(engine):
    _, service = engine
    page = Image.open(io.BytesIO(photo_of(passage("lunyu:2.1"), size=44)))
    big = io.BytesIO()
    page.resize((8192, 6144)).save(big, "JPEG", quality=80)
    media, _ = bytes_media(big.getvalue())
    assert final_of(await collect(service, incoming("", media=(media,)))).citations[0].id == "lunyu:2.1"


@pytest.mark.ocr
async def test_declared_sizes_are_refused_before_download(engine):
    _, service = engine
    media, fetched = bytes_media(b"x", size=25 * 1024 * 1024)
    (notice,) = await collect(service, incoming("", media=(media,)))
    assert notice.extra["media"] == "too_large" and fetched == []
    voice, fetched = bytes_media(b"ogg", "voice", duration_s=3600.0)
    (notice,) = await collect(service, incoming("", media=(voice,)))
    assert notice.extra["media"] == "voice_off" and fetched == []  # no endpoint configured here


@pytest.mark.ocr
async def test_the_media_quota_counts_per_person(engine):
    _, service = engine
    results = []
    for _ in range(5):
        media, _ = bytes_media(blank_photo())
        results.append((await collect(service, incoming("", user="zilu", media=(media,))))[-1])
    assert [r.extra.get("media") for r in results[:4]] == ["no_text"] * 4
    assert results[4].reason == "rate_limited" and results[4].extra["limit"] == "media_per_minute"
    media, _ = bytes_media(blank_photo())
    other = await collect(service, incoming("", user="yan", media=(media,)))
    assert other[-1].extra.get("media") == "no_text"  # another person has their own quota


class _LongPage:
    name = "long"

    def read(self, image):
        return [passage("lunyu:5.13")] + ["天下有道则见，无道则隐。" * 10] * 30  # about 3,000 characters


async def test_a_page_of_3000_characters_is_read_from_its_start(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, retriever=CorpusRetriever(), media=MediaIntake(PageReader(_LongPage())))
    media, _ = bytes_media(photo_of("字"))
    final = final_of(await collect(service, incoming("", media=(media,))))
    question = (await storage.messages.recent("console:c1", 2))[0].text
    assert len(question) < MAX_PAGE_CHARS + 40 and final.citations[0].id == "lunyu:5.13"


async def test_voice_is_transcribed_answered_and_shown_back(tmp_path):
    async with FakeTranscriber() as stt:
        storage = sqlite_storage(tmp_path)
        intake = MediaIntake(transcriber=OpenAITranscriber(stt.base_url, "stt-key", "whisper-test"))
        service = make_service(storage, retriever=CorpusRetriever(), media=intake)
        stt.say("学而时习之不亦说乎")
        voice, _ = bytes_media(b"OggS" + bytes(2000), "voice", duration_s=4.0, mime="audio/ogg", name="v.ogg")
        events = await collect(service, incoming("", media=(voice,)))
        final = final_of(events)
        assert final.text.startswith("🎙️「学而时习之不亦说乎」") and final.citations[0].id == "lunyu:1.1"
        (heard,) = stt.requests
        assert (heard.model, heard.filename, heard.size, heard.language) == ("whisper-test", "v.ogg", 2004, "zh")
        assert heard.authorization == "Bearer stt-key"
        stt.fail(500)
        stt.fail(500)
        voice, _ = bytes_media(b"OggS", "voice", duration_s=2.0)
        (notice,) = await collect(service, incoming("", media=(voice,)))
        assert notice.extra["media"] == "voice_failed"
        long, fetched = bytes_media(b"OggS", "voice", duration_s=3600.0)
        (notice,) = await collect(service, incoming("", media=(long,)))
        assert notice.extra["media"] == "voice_too_long" and fetched == []


async def test_no_ocr_installed_is_said_in_one_line(tmp_path):
    service = make_service(sqlite_storage(tmp_path), media=MediaIntake(limits=MediaLimits()))
    media, fetched = bytes_media(photo_of(LUNYU_5_13))
    (notice,) = await collect(service, incoming("", media=(media,)))
    assert notice.extra["media"] == "no_ocr" and fetched == []


def test_every_problem_has_its_line():
    assert set(LINES) == set(MediaProblem.__args__)  # type: ignore[attr-defined]


def test_cleaning_joins_lines_and_fixes_punctuation_and_yue():
    assert clean_ocr(["子日:学而时习之, 不亦说乎?有朋自", "远方来，不亦乐乎? 人不知而不愠."]) == (
        "子曰：学而时习之，不亦说乎？有朋自远方来，不亦乐乎？人不知而不愠。"
    )
    assert clean_ocr(["子贡日：“夫子之文章”", "日月逝矣"]) == "子贡曰：“夫子之文章”日月逝矣"


async def test_what_was_heard_leads_the_streamed_text_again_after_a_reset():
    from core.events import FinalReply, TextReset
    from core.media.intake import _heard_first

    async def stream():
        for event in (TextDelta("子曰"), TextReset("regenerate"), TextDelta("学而"), FinalReply("学而时习之")):
            yield event

    events = [e async for e in _heard_first(stream(), "学而")]
    shown = [e.text if isinstance(e, TextDelta | FinalReply) else "|" for e in events]
    assert shown == ["🎙️「学而」\n\n", "子曰", "|", "🎙️「学而」\n\n", "学而", "🎙️「学而」\n\n学而时习之"]


@pytest.mark.ocr
async def test_with_vision_the_photo_goes_to_the_model_beside_its_text(tmp_path, rapid, fake_llm):
    from core.llm.client import OpenAIChatClient
    from core.media.vision import VisionContext
    from tests.helpers_engine import WindowContext

    storage = sqlite_storage(tmp_path)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="vl-model", timeout_s=10)
    service = make_service(
        storage,
        llm=llm,
        context=VisionContext(WindowContext(storage)),
        media=MediaIntake(PageReader(rapid), vision=True),
    )
    fake_llm.stream_text("此出《论语·公冶长》。")
    media, _ = bytes_media(photo_of(LUNYU_5_13))
    final_of(await collect(service, incoming("这是哪一篇？", media=(media,))))
    content = fake_llm.requests[-1]["messages"][-1]["content"]
    assert content[0]["type"] == "text" and "夫子之文章" in content[0]["text"]
    assert content[1]["image_url"]["url"].startswith("data:image/jpeg;base64,/9j/")  # a JPEG
    fake_llm.stream_text("学而时习之。")
    final_of(await collect(service, incoming("何为学？")))
    assert fake_llm.requests[-1]["messages"][-1]["content"] == "何为学？"  # text turns stay text
    stored = await storage.messages.recent("console:c1", 4)
    assert all(isinstance(m.text, str) and "base64" not in m.text for m in stored)
    await llm.aclose()
