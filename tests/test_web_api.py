"""The HTTP API end to end: real uvicorn on 127.0.0.1, httpx, the real engine, the fake LLM server."""

from __future__ import annotations

import asyncio
import json
import re
import time

import httpx
import jwt
import pytest

from adapters.web.auth import JwtAuth
from adapters.web.hardening import IpLimiter
from adapters.web.settings import WebSettings
from bot.settings import Settings
from core.ports import Refusal
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_engine import OpenGuard
from tests.helpers_web import build_retriever, chat_events, sse, web_app

SECRET = "test-secret-0123456789abcdef0123456789"
ANSWER = "子曰：“管仲之器小哉！”[1] 器小，言其格局不足以成王道。"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


def jwt_settings(**web) -> Settings:
    return Settings(web=WebSettings(jwt_secret=SECRET, **web))


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def test_events_stream_in_order_and_final_has_citations(tmp_path, fake_llm, retriever):
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉", "k": 3})])
    fake_llm.stream_text(ANSWER, chunk=4)
    async with web_app(tmp_path, fake_llm, retriever) as (base, runtime, _), httpx.AsyncClient(timeout=20) as client:
        events = await chat_events(client, base, {"message": "夫子如何评价管仲？"})
    names = [name for name, _ in events]
    assert names[0] == "tool" and names[-1] == "final"
    assert names.index("delta") > names.index("tool") and "notice" not in names
    final = events[-1][1]
    assert final["citations"] == [{"n": 1, "id": "lunyu:3.22", "ref": "《论语·八佾》第22章"}]
    assert "".join(d["text"] for n, d in events if n == "delta").startswith("子曰")
    assert final["text"].startswith("子曰") and len(final["trace_id"]) == 16
    rows = await runtime.storage.messages.recent("web:local/main", 5)
    assert [(r.role, r.status) for r in rows] == [("user", "ok"), ("assistant", "ok")]


async def test_passage_skills_and_openapi(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        passage = (await client.get(f"{base}/v1/passages/lunyu:3.22")).json()
        missing = await client.get(f"{base}/v1/passages/lunyu:99.1")
        skills = (await client.get(f"{base}/v1/skills")).json()
        openapi = (await client.get(f"{base}/openapi.json")).json()
        page = await client.get(f"{base}/")
        script = await client.get(f"{base}/static/app.js")
    assert passage["ref"] == "《论语·八佾》第22章" and "管仲之器小哉" in passage["text"]
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert skills["current"] == "teaching" and len(skills["skills"]) >= 2
    assert {"/v1/chat", "/v1/chat/cancel", "/v1/skills", "/v1/passages/{passage_id}"} <= set(openapi["paths"])
    assert (
        page.status_code == 200
        and "/static/app.js" in page.text
        and not re.search(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write", script.text)
    )
    assert "script-src 'self'" in page.headers["content-security-policy"] and page.headers["x-frame-options"] == "DENY"


async def test_skill_switch_then_message(tmp_path, fake_llm, retriever):
    fake_llm.stream_text("诗三百，一言以蔽之。", chunk=4)
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        events = await chat_events(client, base, {"message": "谈谈诗", "skill": "poetry", "chat": "c2"})
        skills = (await client.get(f"{base}/v1/skills", params={"chat": "c2"})).json()
        unknown = await client.post(f"{base}/v1/chat", json={"message": "x", "skill": "nope"})
    assert events[0][0] == "notice" and events[0][1]["extra"]["current"] == "poetry"
    assert events[-1][0] == "final" and skills["current"] == "poetry"
    assert unknown.status_code == 422 and unknown.json()["error"] == "invalid_request"


async def test_busy_notice_and_cancel(tmp_path, fake_llm, retriever):
    fake_llm.stream_text(
        ANSWER * 60, chunk=2, chunk_delay=0.05
    )  # ~50 s unless cancelled: still running on a busy machine
    async with web_app(tmp_path, fake_llm, retriever) as (base, runtime, _), httpx.AsyncClient(timeout=20) as client:
        async with client.stream("POST", f"{base}/v1/chat", json={"message": "何为学？"}) as response:
            seen, stream = [], sse(response)
            async for name, data in stream:
                seen.append((name, data))
                if name == "delta":
                    break
            busy = await chat_events(client, base, {"message": "再问一句", "chat": "other"})
            cancel = (await client.post(f"{base}/v1/chat/cancel", json={})).json()
            seen += [event async for event in stream]
    assert busy[-1][0] == "notice" and busy[-1][1]["reason"] == "busy"
    assert cancel["reason"] == "command" and cancel["extra"]["cancelled"] is True
    assert "final" not in [n for n, _ in seen]  # the cancelled stream simply ends
    rows = await runtime.storage.messages.recent("web:local/main", 5)
    assert ("assistant", "cancelled") in [(r.role, r.status) for r in rows]


async def test_limited_notice(tmp_path, fake_llm, retriever):
    guard = OpenGuard(refuse=Refusal("今日问得太多，明日再来。", reason="per_day", retry_after_s=3600))
    async with (
        web_app(tmp_path, fake_llm, retriever, guard=guard) as (base, _, metrics),
        httpx.AsyncClient(timeout=20) as client,
    ):
        events = await chat_events(client, base, {"message": "何为仁？"})
        text = (await client.get(f"{base}/metrics")).text
    assert [n for n, _ in events] == ["notice"]
    assert events[0][1]["reason"] == "rate_limited" and events[0][1]["text"] == "今日问得太多，明日再来。"
    assert 'fuzi_guard_refusals_total{reason="rate_limited"} 1.0' in text


async def test_client_disconnect_cancels_and_frees_the_person(tmp_path, fake_llm, retriever):
    fake_llm.stream_text(ANSWER * 8, chunk=2, chunk_delay=0.05)
    async with (
        web_app(tmp_path, fake_llm, retriever) as (base, runtime, metrics),
        httpx.AsyncClient(timeout=20) as client,
    ):
        async with client.stream("POST", f"{base}/v1/chat", json={"message": "何为学？"}) as response:
            async for name, _ in sse(response):
                if name == "delta":
                    break  # leaving the block closes the connection mid-stream
        for _ in range(200):
            rows = await runtime.storage.messages.recent("web:local/main", 5)
            if ("assistant", "cancelled") in [(r.role, r.status) for r in rows]:
                break
            await asyncio.sleep(0.05)
        assert ("assistant", "cancelled") in [(r.role, r.status) for r in rows]
        fake_llm.stream_text("学而时习之。", chunk=4)
        again = await chat_events(client, base, {"message": "再问"})  # not "busy": the person was freed
        text = (await client.get(f"{base}/metrics")).text
    assert again[-1][0] == "final"
    assert 'fuzi_replies_total{level="-",outcome="cancelled",platform="web"} 1.0' in text


@pytest.mark.parametrize("case", ["none", "expired", "wrong_secret", "alg_none", "garbage"])
async def test_bad_tokens_get_401_json(tmp_path, fake_llm, retriever, case):
    now = int(time.time())
    tokens = {
        "none": None,
        "expired": JwtAuth(SECRET).issue("ann", 60, now=now - 3600),
        "wrong_secret": JwtAuth("another-secret-0123456789abcdefghij").issue("ann", 600),
        "alg_none": jwt.encode({"sub": "ann", "exp": now + 600}, None, algorithm="none"),
        "garbage": "not.a.token",
    }
    headers = bearer(tokens[case]) if tokens[case] else {}
    async with (
        web_app(tmp_path, fake_llm, retriever, settings=jwt_settings()) as (base, _, _),
        httpx.AsyncClient(timeout=20) as client,
    ):
        response = await client.post(f"{base}/v1/chat", json={"message": "何为仁？"}, headers=headers)
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    body = response.json()
    assert body["error"] == "unauthorized" and "Traceback" not in response.text
    assert fake_llm.requests == []


async def test_token_subject_is_the_web_person(tmp_path, fake_llm, retriever):
    fake_llm.stream_text("有朋自远方来。", chunk=4)
    token = JwtAuth(SECRET).issue("ann", 600)
    async with (
        web_app(tmp_path, fake_llm, retriever, settings=jwt_settings()) as (base, runtime, _),
        httpx.AsyncClient(timeout=20) as client,
    ):
        events = await chat_events(client, base, {"message": "何为友？"}, headers=bearer(token))
        me = (await client.get(f"{base}/v1/me", headers=bearer(token))).json()
    assert events[-1][0] == "final" and me == {"user": "ann", "auth": "jwt"}
    rows = await runtime.storage.messages.recent("web:ann/main", 5)
    assert [r.role for r in rows] == ["user", "assistant"]


async def test_oversize_body_and_per_ip_limit(tmp_path, fake_llm, retriever):
    settings = Settings(web=WebSettings(max_body_bytes=2048, per_ip_per_minute=5))
    async with (
        web_app(tmp_path, fake_llm, retriever, settings=settings) as (base, _, metrics),
        httpx.AsyncClient(timeout=20) as client,
    ):
        big = await client.post(f"{base}/v1/chat", json={"message": "仁" * 4000})

        async def chunks():
            for _ in range(10):
                yield json.dumps({"message": "x" * 500}).encode()

        streamed = await client.post(f"{base}/v1/chat", content=chunks(), headers={"content-type": "application/json"})
        statuses = [(await client.get(f"{base}/v1/skills")).status_code for _ in range(5)]
        health = await client.get(f"{base}/healthz")  # ops routes are not limited
        text = (await client.get(f"{base}/metrics")).text
    assert big.status_code == 413 and big.json()["error"] == "body_too_large"
    assert streamed.status_code == 413
    assert statuses.count(429) >= 2 and health.status_code == 200
    assert 'fuzi_rate_limited_total{platform="web"}' in text


def test_the_per_ip_window_moves_and_says_when_the_next_request_fits():
    now = [1000.0]
    limiter = IpLimiter(3, clock=lambda: now[0])
    for t in (0.0, 10.0, 20.0):
        now[0] = 1000.0 + t
        assert limiter.allow("1.2.3.4")
    now[0] = 1030.0
    assert not limiter.allow("1.2.3.4") and limiter.allow("5.6.7.8")  # per address
    assert limiter.retry_after_s("1.2.3.4") == 30  # the first request leaves the window at 1060
    now[0] = 1060.0
    assert limiter.allow("1.2.3.4") and not limiter.allow("1.2.3.4")  # a refused request is not counted


async def test_health_ready_and_metrics(tmp_path, fake_llm, retriever):
    fake_llm.stream_text("学而时习之。", chunk=4)
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        await chat_events(client, base, {"message": "何为学？"})
        health = await client.get(f"{base}/healthz")
        ready = await client.get(f"{base}/readyz")
        text = (await client.get(f"{base}/metrics")).text
    assert health.json() == {"status": "ok"}
    assert ready.status_code == 200 and ready.json()["checks"] == {"storage": "ok", "index": "ok", "llm": "closed"}
    assert (
        'fuzi_replies_total{level="1",outcome="answered",platform="web"} 1.0' in text
        or 'fuzi_replies_total{level="0",outcome="answered",platform="web"} 1.0' in text
    )
    assert "fuzi_first_text_seconds_count" in text and "fuzi_llm_breaker_state 0.0" in text
    assert 'fuzi_llm_seconds_count{call="stream",ok="true"}' in text


async def test_not_ready_when_storage_fails_past_the_grace(tmp_path, fake_llm, retriever, monkeypatch):
    import bot.web

    async with web_app(tmp_path, fake_llm, retriever) as (base, runtime, _), httpx.AsyncClient(timeout=20) as client:
        runtime.storage.engine.dispose()
        (tmp_path / "fuzi.sqlite3").unlink()
        (tmp_path / "fuzi.sqlite3").mkdir()  # the database path is now a directory: unusable
        blip = await client.get(f"{base}/readyz")  # a blip: every replica shares it, none is taken out
        monkeypatch.setattr(bot.web, "STORAGE_UNREADY_AFTER_S", 0.0)  # ... but it lasted
        ready = await client.get(f"{base}/readyz")
    assert blip.status_code == 200 and blip.json()["status"] == "degraded"
    assert blip.json()["checks"]["storage"] == "degraded"
    assert ready.status_code == 503 and ready.json()["checks"]["storage"] == "error"


async def test_idle_stream_gets_heartbeats_then_the_answer(tmp_path, fake_llm, retriever):
    fake_llm.delay(1.0, "学而时习之。")
    settings = Settings(web=WebSettings(heartbeat_s=0.2))
    async with (
        web_app(tmp_path, fake_llm, retriever, settings=settings) as (base, _, _),
        httpx.AsyncClient(timeout=20) as client,
    ):
        async with client.stream("POST", f"{base}/v1/chat", json={"message": "何为学？"}) as response:
            lines = [line async for line in response.aiter_lines()]
    first_event = next(i for i, line in enumerate(lines) if line.startswith("event: "))
    assert lines[:first_event].count(": ping") >= 2
    assert "event: final" in lines


def test_short_jwt_secret_is_refused(monkeypatch):
    from bot.settings import SettingsError, load_settings

    monkeypatch.setenv("FUZI_WEB_JWT_SECRET", "short")
    with pytest.raises(SettingsError, match="FUZI_WEB_JWT_SECRET"):
        load_settings()
