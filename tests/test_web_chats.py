"""Chats that persist: list, history (with footnotes), rename, delete; one person never sees another's.
Real uvicorn on 127.0.0.1, httpx, the real engine and retriever, the fake LLM server."""

from __future__ import annotations

import httpx
import pytest
from sqlmodel import Session, select

from adapters.web.auth import JwtAuth
from adapters.web.settings import WebSettings
from bot.settings import Settings
from core.memory.models import ChatMemory, Fact
from core.storage.chatlog import title_from
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, chat_events, web_app

SECRET = "chats-secret-0123456789abcdef0123456789"
ANSWER = "子曰：“管仲之器小哉！”[1] 器小，言其格局不足以成王道。"
SIMPLIFIED = "子曰：“管仲之器小哉！”[1] 器小，说的是他的格局。"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


def test_title_from_first_question():
    assert title_from("  夫子\n如何评价管仲？ ") == "夫子 如何评价管仲？"
    assert len(title_from("问" * 100)) == 40 and title_from("问" * 100).endswith("…")


async def test_list_history_rename_delete(tmp_path, fake_llm, retriever):
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉", "k": 3})])
    fake_llm.stream_text(ANSWER, chunk=6)
    fake_llm.stream_text("学而时习之，不亦说乎。", chunk=6)
    fake_llm.stream_text("温故而知新。", chunk=6)
    async with web_app(tmp_path, fake_llm, retriever) as (base, runtime, _), httpx.AsyncClient(timeout=30) as client:
        await chat_events(client, base, {"message": "夫子如何评价管仲？", "chat": "a"})
        await chat_events(client, base, {"message": "何为学？", "chat": "b"})
        await chat_events(client, base, {"message": "再说一句", "chat": "b"})
        listed = (await client.get(f"{base}/v1/chats")).json()["chats"]
        history = (await client.get(f"{base}/v1/chats/a/messages")).json()["messages"]
        page = (await client.get(f"{base}/v1/chats/b/messages", params={"limit": 2})).json()["messages"]
        older = await client.get(f"{base}/v1/chats/b/messages", params={"limit": 2, "before": page[0]["id"]})
        renamed = await client.patch(f"{base}/v1/chats/a", json={"title": "  管仲  之器 "})
        relisted = (await client.get(f"{base}/v1/chats")).json()["chats"]
        bad = [
            await client.patch(f"{base}/v1/chats/a", json={"title": ""}),
            await client.get(f"{base}/v1/chats/not%20ok/messages"),
            await client.get(f"{base}/v1/chats/a/messages", params={"limit": 0}),
        ]
        with Session(runtime.storage.engine) as s:
            s.add(ChatMemory(chat_key="web:local/b", summary="阿明问学", summarized_upto=1, window_start=1))
            s.add(
                Fact(
                    person_id=1,
                    text="我叫阿明",
                    scope="person",
                    platform="web",
                    account="web:local",
                    chat_key="web:local/b",
                )
            )
            s.commit()
        deleted = await client.delete(f"{base}/v1/chats/b")
        after = (await client.get(f"{base}/v1/chats")).json()["chats"]
        emptied = await client.get(f"{base}/v1/chats/b/messages")
        with Session(runtime.storage.engine) as s:
            summaries = list(s.exec(select(ChatMemory).where(ChatMemory.chat_key == "web:local/b")))
            facts = [f.text for f in s.exec(select(Fact))]
    assert [c["chat"] for c in listed] == ["b", "a"]  # newest first
    assert [c["title"] for c in listed] == ["何为学？", "夫子如何评价管仲？"]
    assert [(m["role"], m["status"]) for m in history] == [("user", "ok"), ("assistant", "ok")]
    assert history[0]["text"] == "夫子如何评价管仲？" and history[1]["text"].startswith("子曰")
    assert history[1]["citations"] == [{"n": 1, "id": "lunyu:3.22", "ref": "《论语·八佾》第22章"}]
    assert history[0]["created_at"] <= history[1]["created_at"]
    assert [m["text"] for m in page] == ["再说一句", "温故而知新。"]
    assert [m["text"] for m in older.json()["messages"]] == ["何为学？", "学而时习之，不亦说乎。"]
    assert renamed.json()["title"] == "管仲 之器" and relisted[0] == renamed.json()
    assert [r.status_code for r in bad] == [422, 422, 422]
    assert bad[0].json()["error"] == "invalid_request"
    assert deleted.json() == {"chat": "b", "deleted_messages": 4}
    assert [c["chat"] for c in after] == ["a"] and emptied.status_code == 404 and summaries == []
    assert facts == ["我叫阿明"]  # long-term memory stays


async def test_a_person_sees_only_their_own_chats(tmp_path, fake_llm, retriever):
    fake_llm.stream_text("有朋自远方来。", chunk=6)
    auth = JwtAuth(SECRET)
    ann, bob = ({"Authorization": f"Bearer {auth.issue(u, 600)}"} for u in ("ann", "bob"))
    settings = Settings(web=WebSettings(jwt_secret=SECRET))
    async with web_app(tmp_path, fake_llm, retriever, settings=settings) as (base, _, _):
        async with httpx.AsyncClient(timeout=30) as client:
            await chat_events(client, base, {"message": "何为友？", "chat": "x"}, headers=ann)
            bobs = (await client.get(f"{base}/v1/chats", headers=bob)).json()["chats"]
            peek = await client.get(f"{base}/v1/chats/x/messages", headers=bob)
            bob_delete = await client.delete(f"{base}/v1/chats/x", headers=bob)
            anns = (await client.get(f"{base}/v1/chats", headers=ann)).json()["chats"]
            anonymous = await client.get(f"{base}/v1/chats")
    assert bobs == [] and peek.status_code == 404 and bob_delete.json()["deleted_messages"] == 0
    assert [c["chat"] for c in anns] == ["x"] and anonymous.status_code == 401


async def test_history_shows_replies_in_the_script_they_were_streamed_in(tmp_path, fake_llm, retriever):
    from core.language.script import ScriptConverter

    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉", "k": 3})])
    fake_llm.stream_text(SIMPLIFIED, chunk=6)
    fake_llm.stream_text("学而时习之，不亦说乎。", chunk=6)
    async with (
        web_app(tmp_path, fake_llm, retriever, scripts=ScriptConverter()) as (base, runtime, _),
        httpx.AsyncClient(timeout=30) as client,
    ):
        streamed = await chat_events(client, base, {"message": "夫子如何評價管仲？", "chat": "a"})
        await chat_events(client, base, {"message": "何为学？", "chat": "a"})
        history = (await client.get(f"{base}/v1/chats/a/messages")).json()["messages"]
        page = (await client.get(f"{base}/v1/chats/a/messages", params={"limit": 3})).json()["messages"]
        stored = await runtime.storage.chatlog.messages("web:local/a")
    final = next(data for kind, data in streamed if kind == "final")
    assert final["text"] == "子曰：“管仲之器小哉！”[1] 器小，說的是他的格局。"
    assert final["citations"] == [{"n": 1, "id": "lunyu:3.22", "ref": "《論語·八佾》第22章"}]
    # reread: the Traditional question's reply as it was streamed, the Simplified one as it was
    assert [m["text"] for m in history] == ["夫子如何評價管仲？", final["text"], "何为学？", "学而时习之，不亦说乎。"]
    assert history[1]["citations"] == final["citations"]
    assert page[0]["text"] == final["text"]  # its question is on the page before
    assert stored[1].text == SIMPLIFIED and stored[1].citations[0]["ref"] == "《论语·八佾》第22章"  # stored as written
