"""`fuzi chat --image FILE` (a real process, RapidOCR, no LLM: the retrieval answer) and `fuzi feedback`."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from bot.cli import main
from core.shown_in import ShownIn
from core.storage.db import create_engine_and_tables
from core.storage.repos import Storage
from tests.helpers_engine import CorpusRetriever, collect, final_of, incoming, make_service
from tests.media_images import Look, fonts_available, render_page
from tests.test_cli_chat import run_chat

PAGE = "子贡曰：“夫子之文章，可得而闻也；夫子之言性与天道，不可得而闻也。”"


@pytest.mark.skipif(not fonts_available() and os.environ.get("CI") != "true", reason="fonts-noto-cjk missing")
@pytest.mark.processes
@pytest.mark.ocr
async def test_chat_image_answers_with_the_passage(tmp_path):
    page = tmp_path / "page.jpg"
    page.write_bytes(render_page(PAGE, Look("sans", 40, -1.5, 0.7, 60)))
    code, out, err = await run_chat(tmp_path, [], "--image", str(page), "--caption", "这是哪一篇？")
    assert code == 0, err
    assert "公冶长" in out, out
    code, out, _ = await run_chat(tmp_path, [], "--image", str(tmp_path / "missing.jpg"))
    assert code != 0


async def _seed(home) -> None:
    storage = Storage(create_engine_and_tables(f"sqlite:///{home / 'fuzi.sqlite3'}"))
    service = make_service(storage, retriever=CorpusRetriever())
    for text, user, emoji in (("学而时习之", "a", "👍"), ("巧言令色", "b", "💩")):
        question = incoming(text, user=user, chat=f"dm-{user}")
        final_of(await collect(service, question))
        await service.record_shown(question.trace_id, ShownIn("console", f"dm-{user}", 1))
        assert await service.record_feedback(
            "console", f"console:{user}", emoji, where=ShownIn("console", f"dm-{user}", 1)
        ) in (
            "up",
            "down",
        )
    assert await service.record_feedback("web", "web:a", "up", trace_id=question.trace_id) == "ignored"  # not theirs
    await service.aclose()


def test_feedback_lists_verdicts_with_question_passages_and_level(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    asyncio.run(_seed(home))
    capsys.readouterr()
    monkeypatch.setenv("FUZI_HOME", str(home))
    monkeypatch.delenv("FUZI_DATABASE_URL", raising=False)
    assert main(["feedback", "--days", "1"]) == 0
    out = capsys.readouterr().out
    assert "👍 console L2 console:a" in out and "Q: 学而时习之" in out and "《论语·学而》第1章" in out
    assert out.strip().endswith("2 verdicts in 1 days: 1 up, 1 down")
    assert main(["feedback", "--days", "1", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["verdict"], r["emoji"], r["level"]) for r in rows] == [("down", "💩", 2), ("up", "👍", 2)]
