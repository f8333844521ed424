"""`fuzi serve` and `fuzi token create` as real processes (the fake LLM server, the hashing embedder)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import httpx
import pytest

from adapters.web.auth import JwtAuth
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_process import child_env, free_port, spawn_fuzi
from tests.helpers_web import sse

pytestmark = pytest.mark.processes

SECRET = "cli-secret-0123456789abcdef0123456789"


def env(tmp_path: Path, **extra: str) -> dict:
    return child_env(tmp_path / "home", **extra)


async def fuzi(tmp_path: Path, *args: str, **extra: str) -> tuple[int, str, str]:
    proc = await spawn_fuzi(*args, cwd=tmp_path, env=env(tmp_path, **extra))
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    return proc.returncode, out.decode(), err.decode()


async def test_token_create_prints_a_verifiable_token(tmp_path):
    code, out, err = await fuzi(tmp_path, "token", "create", "--user", "ann", "--ttl", "2h", FUZI_WEB_JWT_SECRET=SECRET)
    assert code == 0, err
    assert JwtAuth(SECRET).user_for(f"Bearer {out.strip()}") == "ann"
    assert SECRET not in out + err


async def test_token_create_admin_gives_the_operator_role(tmp_path):
    code, out, err = await fuzi(tmp_path, "token", "create", "--user", "root", "--admin", FUZI_WEB_JWT_SECRET=SECRET)
    assert code == 0, err
    code, plain, err = await fuzi(tmp_path, "token", "create", "--user", "ann", FUZI_WEB_JWT_SECRET=SECRET)
    assert code == 0, err
    auth = JwtAuth(SECRET)
    assert await auth.operator(f"Bearer {out.strip()}") == ("root", True)
    assert await auth.operator(f"Bearer {plain.strip()}") == ("ann", False)


async def test_token_create_without_secret_or_with_bad_ttl_says_one_line(tmp_path):
    code, _, err = await fuzi(tmp_path, "token", "create", "--user", "ann")
    assert code == 2 and "FUZI_WEB_JWT_SECRET" in err and "Traceback" not in err
    code, _, err = await fuzi(tmp_path, "token", "create", "--user", "ann", "--ttl", "soon", FUZI_WEB_JWT_SECRET=SECRET)
    assert code == 2 and "--ttl" in err and len(err.strip().splitlines()) == 1


async def test_public_address_without_secret_refuses_to_start(tmp_path):
    code, _, err = await fuzi(tmp_path, "serve", "--host", "0.0.0.0", "--port", str(free_port()))
    assert code == 2 and "FUZI_WEB_JWT_SECRET" in err and "Traceback" not in err


async def test_serve_answers_over_sse_and_stops_on_sigterm(tmp_path, fake_llm):
    fake_llm.set_default(lambda body: "学而时习之，不亦说乎？")
    port = free_port()
    proc = await spawn_fuzi(
        "serve",
        "--port",
        str(port),
        cwd=tmp_path,
        env=env(
            tmp_path,
            FUZI_LLM_BASE_URL=fake_llm.base_url,
            FUZI_LLM_API_KEY="sk-test-key-123456",
            FUZI_WEB_JWT_SECRET=SECRET,
        ),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    base, token = f"http://127.0.0.1:{port}", JwtAuth(SECRET).issue("bob", 600)
    try:
        async with httpx.AsyncClient(timeout=20) as client:
            for _ in range(600):
                try:
                    if (await client.get(f"{base}/readyz")).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            async with client.stream(
                "POST", f"{base}/v1/chat", json={"message": "何为学？"}, headers={"Authorization": f"Bearer {token}"}
            ) as response:
                events = [e async for e in sse(response)]
            auth = {"Authorization": f"Bearer {token}"}
            remembered = await client.post(
                f"{base}/v1/chat", json={"message": "/remember 我最爱读《诗经》"}, headers=auth
            )
            memories = await client.post(f"{base}/v1/chat", json={"message": "/memories"}, headers=auth)
            metrics = (await client.get(f"{base}/metrics")).text
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(proc.communicate(), timeout=30)
    assert events[-1][0] == "final" and "学而时习之" in events[-1][1]["text"]
    assert 'fuzi_replies_total{level="0",outcome="answered",platform="web"} 1.0' in metrics
    assert '"reason": "command"' in remembered.text and "诗经" in memories.text  # the memory commands work on the web
    assert proc.returncode == 0, err.decode()[-2000:]
    assert token not in (out + err).decode() and SECRET not in (out + err).decode()


async def test_run_telegram_serves_metrics_on_its_own_port(tmp_path, fake_llm):
    from tests.fakes.telegram_api import TOKEN, FakeTelegram

    fake_llm.set_default(lambda body: "学而时习之，不亦说乎？")
    port = free_port()
    async with FakeTelegram() as tg:
        proc = await spawn_fuzi(
            "run",
            "telegram",
            cwd=tmp_path,
            env=env(
                tmp_path,
                FUZI_LLM_BASE_URL=fake_llm.base_url,
                FUZI_LLM_API_KEY="sk-test-key-123456",
                TELEGRAM_BOT_TOKEN=TOKEN,
                TELEGRAM_API_BASE_URL=tg.base_url,
                TELEGRAM_POLL_TIMEOUT_S="1",
                FUZI_METRICS_PORT=str(port),
            ),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            async with httpx.AsyncClient(timeout=20) as client:
                for _ in range(600):
                    try:
                        if (await client.get(f"{base}/readyz")).status_code == 200:
                            break
                    except httpx.TransportError:
                        await asyncio.sleep(0.1)
                tg.private_text(5, "何为学？")
                await tg.wait_for(lambda: any("学而时习之" in m.text for m in tg.messages_in(5)), timeout=30)
                for _ in range(100):  # recorded when the engine's stream ends, just after the final send
                    metrics = (await client.get(f"{base}/metrics")).text
                    if 'outcome="answered",platform="telegram"' in metrics:
                        break
                    await asyncio.sleep(0.05)
                chat = await client.post(f"{base}/v1/chat", json={"message": "x"})
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(proc.communicate(), timeout=30)
    assert 'fuzi_replies_total{level="0",outcome="answered",platform="telegram"} 1.0' in metrics, err.decode()[-3000:]
    assert chat.status_code == 404  # only health and metrics on the ops port
    assert proc.returncode == 0, err.decode()[-2000:]
