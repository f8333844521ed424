"""/recite in the terminal (the console adapter as `fuzi chat` drives it) and in the web chat (real
uvicorn, httpx, the SSE API): the card, the next line or message as its answer, re-rating by command."""

from __future__ import annotations

import io

import httpx
import pytest
from sqlmodel import Session, select

from adapters.console import ConsoleAdapter, ConsoleIdentity
from core.engine.commands import CommandRouter
from core.memory import MemoryConfig, build_memory
from core.recite.cloze import BLANK
from core.recite.models import ReciteOpen
from core.retrieval.documents import load_corpus
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_corpus import corpus_dir
from tests.helpers_engine import sqlite_storage
from tests.helpers_recite import recite_engine
from tests.helpers_web import build_retriever, chat_events, web_app
from tests.test_memory_fixtures import HashEmbedder


async def test_console_card_answer_rerate_and_stats(tmp_path):
    eng = recite_engine(sqlite_storage(tmp_path))
    out = io.StringIO()
    console = ConsoleAdapter(eng.service, ConsoleIdentity("yan", "local"), out, interactive=False)
    await console.say("/recite")
    assert BLANK in out.getvalue() and "【背诵】" in out.getvalue()
    opened = eng.open_card("console:local")
    await console.say(opened.phrase.replace("说", "說"))
    assert "✓ 对了" in out.getvalue()
    await console.say("/recite hard")
    await console.say("/recite stats")
    text = out.getvalue()
    assert "已改评为 hard" in text and "已复习 1 次" in text and "100%" in text
    await console.say("什么是仁？")  # no card open: a question again (answered by the engine, not the deck)
    assert text.count("✓") == out.getvalue().count("✓")


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


async def test_web_chat_card_and_answer_over_the_api(tmp_path, fake_llm, retriever):
    from bot.recite import build_recitation

    router = CommandRouter()
    async with web_app(tmp_path, fake_llm, retriever, router=router) as (base, runtime, _):
        memory = build_memory(runtime.storage.engine, None, HashEmbedder(), MemoryConfig())
        deck = build_recitation(
            runtime.storage,
            load_corpus(corpus_dir()),
            router=router,
            service=runtime.engine,
            memory=memory,
            search=retriever,
        )
        async with httpx.AsyncClient(timeout=20) as client:
            card = await chat_events(client, base, {"message": "/recite add 学而时习之", "chat": "r1"})
            assert card[-1][1]["extra"]["passage"] == "lunyu:1.1"
            card = await chat_events(client, base, {"message": "/recite", "chat": "r1"})
            (kind, notice) = card[-1]
            assert kind == "notice" and BLANK in notice["text"]
            assert "phrase" not in notice["extra"]["recite"]  # the answer never goes to the browser before it is given
            with Session(runtime.storage.engine) as s:
                opened = s.exec(select(ReciteOpen)).one()
            assert opened.chat_key.startswith("web:") and opened.chat_key.endswith("/r1")
            assert await deck.store.count(opened.person_id) == 1
            answer = await chat_events(client, base, {"message": opened.phrase, "chat": "r1"})
    assert answer[-1][0] == "notice" and answer[-1][1]["text"].startswith("✓")
    assert [a[2].split()[-1] for a in answer[-1][1]["extra"]["actions"]] == ["again", "hard", "good", "easy"]
