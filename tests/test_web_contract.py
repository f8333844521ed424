"""The web API keeps its own OpenAPI contract (what the fuzzer in test_web_fuzz.py found, one test
each): bounded and declared parameters, one error shape for every error, every status documented,
a deleted chat stays deleted. Real uvicorn on 127.0.0.1, httpx, the real engine, the fake LLM."""

from __future__ import annotations

import json

import httpx
import pytest

from adapters.common.metrics import FuziMetrics
from adapters.web.app import MESSAGE_ID_MAX, create_app
from adapters.web.auth import LocalAuth
from adapters.web.errors import ErrorOut
from adapters.web.handlers import MESSAGE_MAX_CHARS
from adapters.web.settings import WebSettings
from bot.settings import Settings
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, chat_events, serving, web_app, web_runtime


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


def error_of(response: httpx.Response) -> ErrorOut:
    """The body parsed as the declared error shape (raises when it is not)."""
    return ErrorOut.model_validate(response.json())


async def test_before_is_bounded_and_a_huge_one_is_422_not_500(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        await chat_events(client, base, {"message": "何为仁？", "chat": "a"})
        huge = await client.get(f"{base}/v1/chats/a/messages", params={"before": "171156025011050381312"})
        past = await client.get(f"{base}/v1/chats/a/messages", params={"before": MESSAGE_ID_MAX + 1})
        largest = await client.get(f"{base}/v1/chats/a/messages", params={"before": MESSAGE_ID_MAX})
        spec = (await client.get(f"{base}/openapi.json")).json()
    assert [huge.status_code, past.status_code, largest.status_code] == [422, 422, 200]
    problem = error_of(huge).detail[0]
    assert not isinstance(problem, str) and problem.loc == ["query", "before"] and problem.type
    assert len(largest.json()["messages"]) == 2
    params = {p["name"]: p["schema"] for p in spec["paths"]["/v1/chats/{chat}/messages"]["get"]["parameters"]}
    before = next(s for s in params["before"]["anyOf"] if s.get("type") == "integer")
    assert (before["minimum"], before["maximum"]) == (1, MESSAGE_ID_MAX)
    assert (params["limit"]["minimum"], params["limit"]["maximum"]) == (1, 200)


async def test_a_deleted_chat_stays_deleted(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        await chat_events(client, base, {"message": "何为仁？", "chat": "gone"})
        deleted = await client.delete(f"{base}/v1/chats/gone")
        renamed = await client.patch(f"{base}/v1/chats/gone", json={"title": "回来"})
        read = await client.get(f"{base}/v1/chats/gone/messages")
        again = await client.delete(f"{base}/v1/chats/gone")
        never = await client.patch(f"{base}/v1/chats/never", json={"title": "新"})
        listed = (await client.get(f"{base}/v1/chats")).json()["chats"]
    assert deleted.json() == {"chat": "gone", "deleted_messages": 2}
    assert [renamed.status_code, read.status_code, never.status_code] == [404, 404, 404]
    assert error_of(renamed).error == "not_found" and error_of(read).error == "not_found"
    assert again.json() == {"chat": "gone", "deleted_messages": 0}  # deleting stays idempotent
    assert listed == []  # neither came back through the rename


async def test_every_error_has_the_declared_shape(tmp_path, fake_llm, retriever):
    settings = Settings(web=WebSettings(jwt_secret="contract-secret-0123456789abcdef012345", per_ip_per_minute=8))
    async with web_app(tmp_path, fake_llm, retriever, settings=settings) as (base, _, _):
        async with httpx.AsyncClient(timeout=20) as client:
            answers = {
                401: await client.get(f"{base}/v1/me"),
                404: await client.get(f"{base}/nowhere"),
                405: await client.put(f"{base}/v1/chats/a"),
                413: await client.post(f"{base}/v1/chat", content=b"x" * 70_000),
                403: await client.post(f"{base}/v1/chat", json={"message": "x"}, headers={"Origin": "https://evil"}),
            }
            for _ in range(8):
                answers[429] = await client.get(f"{base}/v1/me")
    assert {code: r.status_code for code, r in answers.items()} == {code: code for code in answers}
    words = {code: error_of(r).error for code, r in answers.items()}
    assert words == {
        401: "unauthorized",
        404: "not_found",
        405: "method_not_allowed",
        413: "body_too_large",
        403: "forbidden",
        429: "too_many_requests",
    }
    assert error_of(answers[429]).retry_after_s


async def test_validation_errors_name_location_message_and_type(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        bodies = [
            await client.post(f"{base}/v1/feedback"),
            await client.post(f"{base}/v1/chat", json={"message": "问" * (MESSAGE_MAX_CHARS + 1)}),
            await client.patch(f"{base}/v1/chats/a", json={"title": ""}),
            await client.post(f"{base}/v1/chat/image", content=b"", headers={"Content-Type": "image/png"}),
        ]
        widest = json.dumps({"message": "𠀀" * MESSAGE_MAX_CHARS})  # 12 bytes a character, escaped
        longest = await client.post(f"{base}/v1/chat", content=widest, headers={"Content-Type": "application/json"})
    assert [b.status_code for b in bodies] == [422] * 4
    for response in bodies:
        error = error_of(response)
        assert error.error == "invalid_request"
        assert isinstance(error.detail, str) or all(p.loc and p.msg and p.type for p in error.detail)
    assert len(widest) > 60_000 and longest.status_code == 200  # within the body limit; the engine says too_long


async def test_declared_parameters_are_enforced_and_enforced_ones_declared(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever) as (base, runtime, _), httpx.AsyncClient(timeout=20) as client:
        spec = (await client.get(f"{base}/openapi.json")).json()
        empty_chat = await client.get(f"{base}/v1/skills", params={"chat": ""})
        long_passage = await client.get(f"{base}/v1/passages/{'x' * 65}")
        unknown_skill = await client.post(f"{base}/v1/chat", json={"message": "x", "skill": "nope"})
    paths = spec["paths"]
    skills_chat = next(p for p in paths["/v1/skills"]["get"]["parameters"] if p["name"] == "chat")
    patterns = [
        next(s for s in skills_chat["schema"]["anyOf"] if s.get("type") == "string")["pattern"],
        paths["/v1/chats/{chat}"]["patch"]["parameters"][0]["schema"]["pattern"],
        next(p for p in paths["/v1/chat/image"]["post"]["parameters"] if p["name"] == "chat")["schema"]["pattern"],
    ]
    assert patterns == [r"^[A-Za-z0-9_-]{1,32}$"] * 3
    assert empty_chat.status_code == 422 and long_passage.status_code == 422
    request = spec["components"]["schemas"]["ChatRequest"]["properties"]
    assert request["message"]["maxLength"] == MESSAGE_MAX_CHARS
    assert request["skill"]["anyOf"][0]["enum"] == [name for name, _ in runtime.engine.skills()]
    assert unknown_skill.status_code == 422 and error_of(unknown_skill).error == "invalid_request"


async def test_every_status_a_route_answers_is_documented(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        spec = (await client.get(f"{base}/openapi.json")).json()
        options = await client.options(f"{base}/v1/chats/a")
        not_image = await client.post(f"{base}/v1/chat/image", content=b"x", headers={"Content-Type": "text/plain"})
        not_mine = await client.post(f"{base}/v1/feedback", json={"trace_id": "0f058e75815a4f4e", "verdict": "up"})
    documented = {
        (path, method): set(op["responses"]) for path, ops in spec["paths"].items() for method, op in ops.items()
    }
    for (path, method), codes in documented.items():
        assert {"400", "413", "500"} <= codes, (path, method)
        if path.startswith("/v1/"):
            assert {"401", "429"} <= codes, (path, method)
        if method in ("post", "patch", "delete"):
            assert "403" in codes, (path, method)
        if method != "get" or "{" in path or path in ("/v1/skills",):
            assert "422" in codes, (path, method)
    assert {"415", "422"} <= documented[("/v1/chat/image", "post")] and not_image.status_code == 415
    assert "404" in documented[("/v1/feedback", "post")] and not_mine.status_code == 404
    assert "503" in documented[("/readyz", "get")]
    assert options.status_code == 405 and options.headers["allow"] == "DELETE, PATCH"
    error = spec["components"]["schemas"]["ErrorOut"]
    assert set(error["required"]) == {"error", "detail"}
    for (path, method), codes in documented.items():
        for code in codes - {"200", "503"}:
            schema = spec["paths"][path][method]["responses"][code]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorOut"}, (path, method, code)


class BrokenPassages:
    """A passage lookup that fails, to see what an unexpected exception becomes."""

    async def get(self, passage_id: str):
        raise RuntimeError("the index file vanished")


async def test_an_unexpected_failure_is_500_in_the_error_shape(tmp_path, fake_llm, retriever):
    metrics = FuziMetrics()
    async with web_runtime(tmp_path, fake_llm, retriever, metrics) as runtime:
        app = create_app(runtime.engine, BrokenPassages(), LocalAuth(), readiness=_ready, metrics=metrics)
        async with serving(app) as base, httpx.AsyncClient(timeout=20) as client:
            failed = await client.get(f"{base}/v1/passages/lunyu:3.22")
    assert failed.status_code == 500 and error_of(failed).error == "internal"
    assert "vanished" not in failed.text and "Traceback" not in failed.text


async def _ready() -> dict[str, str]:
    return {"storage": "ok", "index": "ok"}
