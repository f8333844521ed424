"""The reading room's API with each sign-in: local mode, a bearer token, a Telegram Mini App's init
data (the same person as in their Telegram chats). Real uvicorn on 127.0.0.1, httpx, the real
storage (SQLite) and corpus."""

from __future__ import annotations

import time

import httpx
import pytest
from pydantic import SecretStr

from adapters.telegram.settings import TelegramSettings
from adapters.web.auth import JwtAuth
from adapters.web.settings import WebSettings
from bot.settings import Settings
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_corpus import corpus_dir
from tests.helpers_web import build_retriever, web_app
from tests.test_tma import OTHER_TOKEN, TOKEN, init_data

SECRET = "reading-secret-0123456789abcdef0123456789"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


def signed_in_settings() -> Settings:
    return Settings(
        corpus_dir=corpus_dir(),
        web=WebSettings(jwt_secret=SecretStr(SECRET)),
        telegram=TelegramSettings(bot_token=SecretStr(TOKEN)),
    )


async def test_books_chapters_scripts_and_glosses_in_local_mode(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever, Settings(corpus_dir=corpus_dir())) as (base, _, _m):
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            books = (await client.get("/v1/books")).json()["books"]
            plain = (await client.get("/v1/books/lunyu/chapters/1")).json()
            glossed = (await client.get("/v1/books/lunyu/chapters/1", params={"gloss": "true"})).json()
            traditional = (
                await client.get("/v1/books/lunyu/chapters/1", params={"gloss": "true", "script": "traditional"})
            ).json()
            poems = (await client.get("/v1/books/shijing/chapters/1")).json()
            shelf_hant = (await client.get("/v1/books", params={"script": "traditional"})).json()["books"]
            no_book = await client.get("/v1/books/laozi/chapters/1")
            no_chapter = await client.get("/v1/books/lunyu/chapters/99")
            zero = await client.get("/v1/books/lunyu/chapters/0")
            bad_script = await client.get("/v1/books/lunyu/chapters/1", params={"script": "klingon"})
            page = await client.get("/read")
    lunyu = next(b for b in books if b["id"] == "lunyu")
    assert lunyu["title"] == "论语" and len(lunyu["chapters"]) == 20
    assert lunyu["chapters"][0] == {"n": 1, "title": "学而", "passages": 16}
    assert plain["title"] == "学而" and plain["chapters"] == 20 and len(plain["passages"]) == 16
    assert [p["id"] for p in plain["passages"]][:3] == ["lunyu:1.1", "lunyu:1.2", "lunyu:1.3"]
    assert plain["passages"][0]["text"].startswith("子曰：“学而时习之") and plain["passages"][0]["gloss_zh"] is None
    assert glossed["passages"][0]["gloss_zh"] and glossed["passages"][0]["gloss_en"]
    first = traditional["passages"][0]
    assert traditional["title"] == "學而" and first["text"].startswith("子曰：“學而時習之")
    assert first["ref"] == "《論語·學而》第1章" and first["gloss_en"] == glossed["passages"][0]["gloss_en"]
    assert first["gloss_zh"] != glossed["passages"][0]["gloss_zh"]  # converted too
    assert shelf_hant[0]["title"] == "論語" and shelf_hant[0]["chapters"][0]["title"] == "學而"
    assert poems["title"] == "国风·周南" and poems["passages"][0]["ref"].endswith("关雎》")
    assert no_book.status_code == 404 and "lunyu, shijing, mengzi, daxue, zhongyong" in no_book.json()["detail"]
    assert no_chapter.status_code == 404 and "chapters 1–20" in no_chapter.json()["detail"]
    assert zero.status_code == 422 and bad_script.status_code == 422
    assert page.status_code == 200 and "read.js" in page.text
    assert "frame-ancestors https://web.telegram.org" in page.headers["content-security-policy"]
    assert "x-frame-options" not in page.headers


async def test_position_and_bookmarks_in_local_mode(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever, Settings(corpus_dir=corpus_dir())) as (base, _, _m):
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            empty = (await client.get("/v1/me/position")).json()
            put = await client.put("/v1/me/position", json={"passage_id": "lunyu:1.3"})
            where = (await client.get("/v1/me/position")).json()
            foreign = await client.put("/v1/me/position", json={"passage_id": "lunyu:99.1"})
            malformed = await client.put("/v1/me/position", json={"passage": "lunyu:1.3"})
            marks = [await client.put(f"/v1/me/bookmarks/{pid}") for pid in ("lunyu:1.4", "shijing:1", "lunyu:1.4")]
            listed = (await client.get("/v1/me/bookmarks")).json()["bookmarks"]
            unknown = await client.put("/v1/me/bookmarks/lunyu:1.999")
            bad_id = await client.put("/v1/me/bookmarks/..%2F..")
            removed = await client.delete("/v1/me/bookmarks/lunyu:1.4")
            again = await client.delete("/v1/me/bookmarks/lunyu:1.4")
            after = (await client.get("/v1/me/bookmarks")).json()["bookmarks"]
            cross = await client.put(
                "/v1/me/position", json={"passage_id": "lunyu:2.1"}, headers={"Origin": "https://evil.example"}
            )
    assert empty == {"passage_id": None, "book": None, "chapter": None}
    assert put.status_code == 200 and where == {"passage_id": "lunyu:1.3", "book": "lunyu", "chapter": 1}
    assert foreign.status_code == 404 and malformed.status_code == 422
    assert [m.status_code for m in marks] == [200, 200, 200]
    assert [(m["id"], m["book"], m["chapter"]) for m in listed] == [
        ("lunyu:1.4", "lunyu", 1),
        ("shijing:1", "shijing", 1),
    ]
    assert listed[0]["ref"] == "《论语·学而》第4章"
    assert unknown.status_code == 404 and bad_id.status_code in (404, 422)
    assert removed.status_code == 200 and again.status_code == 200
    assert [m["id"] for m in after] == ["shijing:1"]
    assert cross.status_code == 403


async def test_bearer_and_mini_app_sign_in(tmp_path, fake_llm, retriever, capsys):
    now = int(time.time())
    bearer = {"Authorization": "Bearer " + JwtAuth(SECRET).issue("ann", 3600)}
    tma = {"Authorization": "tma " + init_data(4242, now - 10)}
    signed = init_data(4242, now - 10)
    forged = signed[:-1] + ("1" if signed.endswith("0") else "0")  # the hash's last digit changed, whatever it was
    refused = {
        "none": {},
        "forged": {"Authorization": "tma " + forged},
        "expired": {"Authorization": "tma " + init_data(4242, now - 25 * 3600)},
        "other_bot": {"Authorization": "tma " + init_data(4242, now - 10, token=OTHER_TOKEN)},
        "swapped": {"Authorization": "tma " + init_data(4242, now - 10).replace("4242", "4243")},
        "garbage": {"Authorization": "tma %%%"},
        "bad_bearer": {"Authorization": "Bearer nope"},
    }
    async with web_app(tmp_path, fake_llm, retriever, signed_in_settings(), host="0.0.0.0") as (base, runtime, _m):
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            statuses = {k: (await client.get("/v1/me/position", headers=h)).status_code for k, h in refused.items()}
            huge = await client.get("/v1/me/position", headers={"Authorization": "tma " + "a=" + "x" * 5000})
            chapter = await client.get("/v1/books/lunyu/chapters/1", headers=tma)
            await client.put("/v1/me/position", json={"passage_id": "lunyu:1.16"}, headers=tma)
            await client.put("/v1/me/bookmarks/lunyu:1.1", headers=tma)
            await client.put("/v1/me/position", json={"passage_id": "lunyu:2.1"}, headers=bearer)
            tg_where = (await client.get("/v1/me/position", headers=tma)).json()
            web_where = (await client.get("/v1/me/position", headers=bearer)).json()
            web_marks = (await client.get("/v1/me/bookmarks", headers=bearer)).json()["bookmarks"]
            chat_with_tma = await client.get("/v1/chats", headers=tma)
        telegram_person = await runtime.storage.identities.resolve("telegram", "4242")
        stored = await runtime.storage.reading.position(telegram_person)
        marks = await runtime.storage.reading.bookmarks(telegram_person)
    logged = capsys.readouterr().out
    assert logged.count("web_tma_refused") == 6 and "Traceback" not in logged  # one line per refused tma
    assert statuses == {k: 401 for k in refused}
    assert huge.status_code == 400 and huge.json()["error"] == "bad_request"
    assert chapter.status_code == 200 and len(chapter.json()["passages"]) == 16
    assert tg_where["passage_id"] == "lunyu:1.16" and web_where["passage_id"] == "lunyu:2.1"
    assert web_marks == []  # another person
    assert stored == "lunyu:1.16" and [m for m, _ in marks] == ["lunyu:1.1"]  # the person of their Telegram chats
    assert chat_with_tma.status_code == 401  # the Mini App signs in to the reading room only


async def test_the_openapi_document_declares_the_reading_routes(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever, Settings(corpus_dir=corpus_dir())) as (base, _, _m):
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            doc = (await client.get("/openapi.json")).json()
    paths = doc["paths"]
    for path in ("/v1/books", "/v1/books/{book}/chapters/{n}", "/v1/me/position", "/v1/me/bookmarks"):
        assert path in paths
    assert set(paths["/v1/me/bookmarks/{passage_id}"]) == {"put", "delete"}
    assert doc["components"]["securitySchemes"]["HTTPBase"]["scheme"] == "tma"
    assert "404" in paths["/v1/books/{book}/chapters/{n}"]["get"]["responses"]
