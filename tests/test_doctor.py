"""`fuzi doctor` as a real process against the fake OpenAI server, Bot API and Discord REST."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import sys
from pathlib import Path

import pytest

from tests.fakes.discord_server import fake_discord  # noqa: F401
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.telegram_api import BOT_USERNAME, FakeTelegram
from tests.helpers_process import free_port

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[1]
TG_TOKEN = "7012345678:AAH" + "x" * 32
LLM_KEY = "sk-doctor-test-key-0123456789"


def discord_token(user_id: str) -> str:
    return base64.urlsafe_b64encode(user_id.encode()).decode().rstrip("=") + ".GhIjKl." + "y" * 38


async def doctor(tmp_path: Path, **env: str) -> tuple[int, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("FUZI_", "TELEGRAM_", "DISCORD_"))}
    base.update(PYTHONPATH=str(ROOT), FUZI_HOME=str(tmp_path / "home"), **env)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "doctor",
        "--timeout",
        "3",
        cwd=tmp_path,
        env=base,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=60)
    return proc.returncode, out.decode()


def lines(out: str) -> dict[str, str]:
    """check name -> status"""
    return {parts[1]: parts[0] for parts in (line.split() for line in out.splitlines()) if len(parts) >= 2}


async def test_everything_configured_and_reachable_passes(tmp_path, corpus_dir, fake_llm, fake_discord):
    async with FakeTelegram() as tg:
        code, out = await doctor(
            tmp_path,
            FUZI_CORPUS_DIR=str(corpus_dir),
            FUZI_LLM_API_KEY=LLM_KEY,
            FUZI_LLM_BASE_URL=fake_llm.base_url,
            TELEGRAM_BOT_TOKEN=TG_TOKEN,
            TELEGRAM_API_BASE_URL=tg.base_url,
            DISCORD_BOT_TOKEN=discord_token(fake_discord.app_id),
            DISCORD_API_BASE_URL=fake_discord.base_url,
        )
        assert [c.method for c in tg.calls] == ["getMe"]
    assert code == 0, out
    assert lines(out) == {
        "settings": "ok",
        "corpus": "ok",
        "index": "warn",
        "database": "ok",
        "redis": "skip",
        "llm": "ok",
        "telegram": "ok",
        "discord": "ok",
    }, out
    assert f"@{BOT_USERNAME}" in out and "Fuzi" in out
    assert fake_llm.requests[0]["max_tokens"] == 1  # a one-token probe, not a conversation
    assert fake_llm.headers[0]["authorization"] == f"Bearer {LLM_KEY}"
    assert any(r.path == "/users/@me" for r in fake_discord.requests)
    for secret in (TG_TOKEN, LLM_KEY, discord_token(fake_discord.app_id)):
        assert secret not in out


async def test_refused_and_malformed_credentials_fail_without_printing_them(tmp_path, corpus_dir, fake_llm):
    fake_llm.error(401)
    async with FakeTelegram() as tg:
        tg.fail("getMe", status=401)
        code, out = await doctor(
            tmp_path,
            FUZI_CORPUS_DIR=str(corpus_dir),
            FUZI_LLM_API_KEY=LLM_KEY,
            FUZI_LLM_BASE_URL=fake_llm.base_url,
            TELEGRAM_BOT_TOKEN=TG_TOKEN,
            TELEGRAM_API_BASE_URL=tg.base_url,
            DISCORD_BOT_TOKEN="not-a-discord-token",
        )
    assert code == 1, out
    status = lines(out)
    assert status["llm"] == status["telegram"] == status["discord"] == "fail", out
    assert "refused" in out and "malformed" in out
    for secret in (TG_TOKEN, LLM_KEY, "not-a-discord-token"):
        assert secret not in out


async def test_offline_and_unconfigured(tmp_path, corpus_dir):
    port = free_port()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "lunyu.json").write_bytes((corpus_dir / "lunyu.json").read_bytes() + b" ")
    (broken / "shijing.json").write_bytes((corpus_dir / "shijing.json").read_bytes())
    code, out = await doctor(
        tmp_path,
        FUZI_CORPUS_DIR=str(broken),
        FUZI_LLM_API_KEY=LLM_KEY,
        FUZI_LLM_BASE_URL=f"http://127.0.0.1:{port}/v1",
        TELEGRAM_BOT_TOKEN=TG_TOKEN,
        TELEGRAM_API_BASE_URL=f"http://127.0.0.1:{port}/bot",
    )
    status = lines(out)
    assert status["telegram"] == "warn" and "unreachable" in out, out  # format fine, network down
    assert status["llm"] == "warn" and status["discord"] == "skip"
    assert status["corpus"] == "fail" and "sha256" in out
    assert code == 1 and TG_TOKEN not in out and LLM_KEY not in out


async def test_no_llm_key_and_no_tokens_is_a_working_terminal_setup(tmp_path, corpus_dir):
    code, out = await doctor(tmp_path, FUZI_CORPUS_DIR=str(corpus_dir))
    status = lines(out)
    assert code == 0 and status["llm"] == "warn" and status["telegram"] == status["discord"] == "skip", out


async def test_a_malformed_setting_fails_first(tmp_path):
    code, out = await doctor(tmp_path, FUZI_LOG_LEVEL="LOUD")
    assert code == 1 and lines(out) == {"settings": "fail"}, out
    assert "FUZI_LOG_LEVEL" in out


async def test_redis_is_checked_without_printing_its_password(tmp_path, corpus_dir):
    from tests.helpers_db import REDIS_URL

    port = free_port()
    code, out = await doctor(
        tmp_path, FUZI_CORPUS_DIR=str(corpus_dir), FUZI_REDIS_URL=f"redis://:hunter2pw@127.0.0.1:{port}/0"
    )
    status = lines(out)
    assert status["redis"] == "warn" and "unreachable" in out and "hunter2pw" not in out, out
    code, out = await doctor(tmp_path, FUZI_CORPUS_DIR=str(corpus_dir), FUZI_REDIS_URL=REDIS_URL)
    assert lines(out)["redis"] == "ok" and "PING" in out, out
    code, out = await doctor(tmp_path, FUZI_CORPUS_DIR=str(corpus_dir))
    assert lines(out)["redis"] == "skip", out
