"""Local mode that only the local person reaches, and tokens with a longest lifetime and revocation:
real uvicorn on 127.0.0.1, httpx, the real engine (fake LLM), `fuzi token` as a real process."""

from __future__ import annotations

import asyncio
import hashlib
import re
import time

import httpx
import jwt
import pytest

from adapters.web.auth import JwtAuth
from adapters.web.settings import WebSettings
from adapters.web.sites import client_ip, cross_site, local_host, networks
from bot.settings import Settings
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, web_app
from tests.test_web_cli import fuzi

SECRET = "local-secret-0123456789abcdef0123456789"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_host_origin_and_forwarded_rules():
    assert all(local_host(h) for h in ("localhost:8080", "127.0.0.1", "127.3.4.5:1", "[::1]:8080", "LOCALHOST."))
    assert not any(local_host(h) for h in ("evil.example:8080", "127.0.0.1.evil.example", "10.0.0.1", "", "[::1"))
    assert local_host("fuzi.lan:8080", ["fuzi.lan"])
    own = {"host": "127.0.0.1:8080"}
    assert cross_site("POST", {**own, "origin": "http://evil.example"})
    assert cross_site("DELETE", {**own, "origin": "null"})
    assert cross_site("POST", {**own, "sec-fetch-site": "cross-site"})
    assert not cross_site("POST", {**own, "origin": "http://127.0.0.1:8080"})
    assert not cross_site("POST", {**own, "origin": "https://app.example"}, ["https://app.example"])
    assert not cross_site("GET", {**own, "origin": "http://evil.example"}) and not cross_site("POST", own)
    proxies = networks(["10.0.0.0/8"])
    assert client_ip("10.0.0.2", "203.0.113.7, 10.0.0.9", proxies) == "203.0.113.7"
    assert client_ip("127.0.0.1", "203.0.113.7", proxies) == "127.0.0.1"  # not a named proxy
    assert client_ip("10.0.0.2", "forged, 198.51.100.1", proxies) == "198.51.100.1"
    assert client_ip("10.0.0.2", "203.0.113.7", ()) == "10.0.0.2"


async def test_local_mode_refuses_foreign_hosts_and_cross_site_requests(tmp_path, fake_llm, retriever):
    settings = Settings(web=WebSettings(allowed_hosts="fuzi.lan", cors_origins="https://app.example"))
    async with web_app(tmp_path, fake_llm, retriever, settings=settings) as (base, _, _):
        port = base.rsplit(":", 1)[1]
        async with httpx.AsyncClient(timeout=20) as client:
            rebound = {  # a page on evil.example whose name now points at 127.0.0.1 (DNS rebinding)
                path: await client.request(method, base + path, headers={"Host": f"evil.example:{port}"}, json={})
                for method, path in (("GET", "/"), ("GET", "/v1/chats"), ("POST", "/v1/chat/cancel"))
            }
            named = await client.get(f"{base}/v1/me", headers={"Host": f"fuzi.lan:{port}"})
            by_name = await client.get(f"{base}/v1/me", headers={"Host": f"localhost:{port}"})
            foreign = {"Origin": "http://evil.example"}
            cancel = await client.post(f"{base}/v1/chat/cancel", json={}, headers=foreign)
            chat = await client.post(f"{base}/v1/chat", json={"message": "/forget all"}, headers=foreign)
            delete = await client.delete(f"{base}/v1/chats/main", headers=foreign)
            fetch_meta = await client.post(f"{base}/v1/chat/cancel", json={}, headers={"Sec-Fetch-Site": "cross-site"})
            own = await client.post(f"{base}/v1/chat/cancel", json={}, headers={"Origin": base})
            listed = await client.post(f"{base}/v1/chat/cancel", json={}, headers={"Origin": "https://app.example"})
    assert {r.status_code for r in rebound.values()} == {400}
    assert rebound["/"].json()["error"] == "bad_host" and "Fuzi" not in rebound["/"].text
    assert named.status_code == 200 and by_name.json() == {"user": "local", "auth": "local"}
    for refused in (cancel, chat, delete, fetch_meta):
        assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    assert own.status_code == 200 and listed.status_code == 200
    assert fake_llm.requests == []


async def test_forwarded_for_is_believed_only_from_named_proxies(tmp_path, fake_llm, retriever):
    for proxies, expect_limited in (("", True), ("127.0.0.1", False)):
        settings = Settings(web=WebSettings(per_ip_per_minute=3, trusted_proxies=proxies))
        async with web_app(tmp_path / (proxies or "none"), fake_llm, retriever, settings=settings) as (base, _, _):
            async with httpx.AsyncClient(timeout=20) as client:
                rotating = [
                    (await client.get(f"{base}/v1/me", headers={"X-Forwarded-For": f"198.51.100.{i}"})).status_code
                    for i in range(6)
                ]
                same = [
                    (await client.get(f"{base}/v1/me", headers={"X-Forwarded-For": "203.0.113.9"})).status_code
                    for _ in range(4)
                ]
        assert (429 in rotating) is expect_limited, (proxies, rotating)
        assert same[-1] == 429


async def test_token_lifetime_and_revocation(tmp_path, fake_llm, retriever):
    settings = Settings(web=WebSettings(jwt_secret=SECRET, token_max_ttl="1d"))
    auth = JwtAuth(SECRET, max_ttl_s=86400)
    now = time.time()
    forged_long = jwt.encode({"sub": "ann", "iat": int(now), "exp": int(now) + 100_000 * 604800}, SECRET, "HS256")
    no_iat = jwt.encode({"sub": "ann", "exp": int(now) + 600}, SECRET, "HS256")
    with pytest.raises(ValueError):
        auth.issue("ann", 2 * 86400)
    async with web_app(tmp_path, fake_llm, retriever, settings=settings) as (base, runtime, _):
        async with httpx.AsyncClient(timeout=20) as client:

            async def me(token: str) -> httpx.Response:
                return await client.get(f"{base}/v1/me", headers=bearer(token))

            old, bob = auth.issue("ann", 3600), auth.issue("bob", 3600)
            assert (await me(old)).status_code == 200
            long_one, missing_iat = await me(forged_long), await me(no_iat)
            await runtime.storage.revocations.revoke("ann")
            fresh = auth.issue("ann", 3600)
            assert (await me(fresh)).status_code == 200  # issued after the revocation
            await asyncio.sleep(2.2)  # a process trusts its last look for REVOCATION_CACHE_S
            revoked = await me(old)
            after = await me(fresh)
            other = await me(bob)
    assert long_one.status_code == 401 and long_one.json()["detail"] == "token lifetime over the limit"
    assert missing_iat.status_code == 401
    assert revoked.status_code == 401 and revoked.json() == {"error": "unauthorized", "detail": "token revoked"}
    assert revoked.headers["www-authenticate"] == "Bearer"
    assert after.status_code == 200 and other.status_code == 200


@pytest.mark.processes
async def test_token_cli_refuses_long_ttl_and_revokes_in_the_database(tmp_path):
    code, out, err = await fuzi(
        tmp_path, "token", "create", "--user", "ann", "--ttl", "100000w", FUZI_WEB_JWT_SECRET=SECRET
    )
    assert code == 1 and out == "" and "30 d" in err and "Traceback" not in err
    code, out, err = await fuzi(tmp_path, "token", "revoke", "--user", "ann", FUZI_WEB_JWT_SECRET=SECRET)
    assert code == 0 and "ann" in out, err
    from core.storage import Storage, open_database

    engine = open_database(f"sqlite:///{tmp_path / 'home' / 'fuzi.sqlite3'}")
    try:
        revoked_at = await Storage(engine).revocations.revoked_at("ann")
    finally:
        engine.dispose()
    assert revoked_at is not None and abs(revoked_at - time.time()) < 60


async def test_openapi_declares_bearer_and_error_body(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        spec = (await client.get(f"{base}/openapi.json")).json()
    schemes = spec["components"]["securitySchemes"]
    assert [s["scheme"] for s in schemes.values()] == ["bearer", "tma"]  # tma: the reading room's Mini App sign-in
    chats = spec["paths"]["/v1/chats"]["get"]
    assert chats["security"] and "401" in chats["responses"]
    error = chats["responses"]["401"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert {"error", "detail"} <= set(spec["components"]["schemas"][error]["properties"])
    invalid = spec["paths"]["/v1/chat"]["post"]["responses"]["422"]["content"]["application/json"]["schema"]
    assert invalid["$ref"].endswith("/" + error)


PINNED = {
    "markdown-it.min.js": ("markdown-it 14.3.3", "494ba53db1aac9f676317dda7062bd9545b5f0bbe3f12b0ab1ab4f813825cfb0"),
    "purify.min.js": ("DOMPurify 3.5.0", "f69a46022ab1f53e969c8ebbca98172c8995785a9b3be72ea4a12d25b1a1bf67"),
}


async def test_page_scripts_are_pinned_and_never_assign_html(tmp_path, fake_llm, retriever):
    async with web_app(tmp_path, fake_llm, retriever) as (base, _, _), httpx.AsyncClient(timeout=20) as client:
        vendored = {name: await client.get(f"{base}/static/vendor/{name}") for name in PINNED}
        ours = {
            name: (await client.get(f"{base}/static/{name}")).text
            for name in ("app.js", "render.js", "i18n.js", "chats.js", "read.js", "tg.js")
        }
        page = (await client.get(f"{base}/")).text
        reading = (await client.get(f"{base}/read")).text
    for name, (release, digest) in PINNED.items():
        assert hashlib.sha256(vendored[name].content).hexdigest() == digest, name
        assert release.split()[1] in vendored[name].text[:300]
    for name, text in ours.items():
        assert not re.search(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|eval\(", text), name
    assert "/static/vendor/markdown-it.min.js" in page and "https://" not in page  # nothing fetched from elsewhere
    assert "/static/read.js" in reading and "https://" not in reading
