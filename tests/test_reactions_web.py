"""The web page's answers are rated by their trace (`POST /v1/feedback`), not by a platform message:
an answer to a photo (read as slowly as a real OCR engine reads it) and to text can both be rated,
as soon as their final event arrived. Real uvicorn, httpx, the real engine ↔ the fake OpenAI server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from core.media.intake import MediaIntake
from core.media.ocr import PageReader
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, chat_events, sse, web_app
from tests.media_images import SlowReader, blank_photo

PAGE = "子贡曰：夫子之文章，可得而闻也；夫子之言性与天道，不可得而闻也。"
ANSWER = "此言夫子之教：文章可闻，性与天道则罕言之。"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


async def test_the_answers_to_a_photo_and_to_text_are_rated_by_their_trace(tmp_path, fake_llm, retriever):
    fake_llm.reply_text(ANSWER).reply_text(ANSWER)
    media = MediaIntake(PageReader(SlowReader(PAGE)))
    async with (
        web_app(tmp_path, fake_llm, retriever, media=media) as (base, runtime, _),
        httpx.AsyncClient(timeout=30) as client,
    ):
        headers = {"Content-Type": "image/jpeg"}
        async with client.stream("POST", f"{base}/v1/chat/image", content=blank_photo(), headers=headers) as r:
            events = [e async for e in sse(r)]
            photo_trace = r.headers["x-trace-id"]
        assert events[-1][0] == "final" and events[-1][1]["trace_id"] == photo_trace
        text_final = (await chat_events(client, base, {"message": "何为学？"}))[-1]
        assert text_final[0] == "final"
        for trace, verdict in ((photo_trace, "up"), (text_final[1]["trace_id"], "down")):
            rated = await client.post(f"{base}/v1/feedback", json={"trace_id": trace, "verdict": verdict})
            assert rated.status_code == 200 and rated.json() == {"outcome": verdict}
    entries = await runtime.storage.feedback.since(datetime.now(UTC) - timedelta(hours=1))
    assert sorted((e.verdict, PAGE in e.question, e.answer) for e in entries) == [
        ("down", False, ANSWER),
        ("up", True, ANSWER),
    ]
