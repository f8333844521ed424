"""The chat API's photo upload and feedback route: real uvicorn, httpx, the real engine with RapidOCR."""

from __future__ import annotations

import os

import httpx
import pytest

from core.media.intake import MediaIntake
from core.media.ocr import PageReader
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, sse, web_app
from tests.media_images import Look, fonts_available, render_page

pytestmark = [
    pytest.mark.ocr,
    pytest.mark.skipif(
        not fonts_available() and os.environ.get("CI") != "true", reason="fonts-noto-cjk missing (scripts/setup-media)"
    ),
]

PAGE = "子贡曰：“夫子之文章，可得而闻也；夫子之言性与天道，不可得而闻也。”"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


@pytest.fixture(scope="module")
def rapid():
    from core.media.ocr_rapid import RapidReader

    return RapidReader(threads=2)


async def upload(client, base, data: bytes, content_type: str, **params) -> tuple[int, list, str]:
    headers = {"Content-Type": content_type}
    async with client.stream("POST", f"{base}/v1/chat/image", content=data, headers=headers, params=params) as r:
        if r.status_code != 200:
            return r.status_code, [], ""
        return 200, [e async for e in sse(r)], r.headers["x-trace-id"]


async def test_photo_upload_streams_an_answer_and_feedback_is_stored(tmp_path, fake_llm, retriever, rapid):
    photo = render_page(PAGE, Look("sans", 40, 1.0, 0.6, 60))
    media = MediaIntake(PageReader(rapid))
    async with (
        web_app(tmp_path, fake_llm, retriever, media=media) as (base, runtime, _),
        httpx.AsyncClient(timeout=60) as client,
    ):
        status, events, trace = await upload(client, base, photo, "image/jpeg", caption="这是哪一篇？")
        assert status == 200 and events[-1][0] == "final", events
        rows = await runtime.storage.messages.recent("web:local/main", 2)
        assert rows[0].text.startswith("这是哪一篇？") and "夫子之文章" in rows[0].text
        ok = await client.post(f"{base}/v1/feedback", json={"trace_id": trace, "verdict": "up"})
        assert ok.status_code == 200 and ok.json() == {"outcome": "up"}
        metrics = (await client.get(f"{base}/metrics")).text
        assert 'fuzi_reply_feedback_total{platform="web",verdict="up"} 1.0' in metrics
        again = await client.post(f"{base}/v1/feedback", json={"trace_id": trace, "verdict": "none"})
        assert again.json() == {"outcome": "cleared"}
        missing = await client.post(f"{base}/v1/feedback", json={"trace_id": "0" * 16, "verdict": "down"})
        assert missing.status_code == 404
        status, events, _ = await upload(client, base, b"%PDF-1.7\n%%EOF", "image/png")
        assert events[-1][0] == "notice" and events[-1][1]["extra"]["media"] == "not_image"
        assert (await upload(client, base, b"plain", "text/plain"))[0] == 415
        assert (await upload(client, base, bytes(10 * 1024 * 1024 + 1), "image/jpeg"))[0] == 413
