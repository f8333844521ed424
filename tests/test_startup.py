"""Start-up that neither leaks nor dies: `fuzi run telegram` as a real process against the fake Bot API.

A rejected token is one line naming the setting, without the token and without a traceback; a Bot API
that answers 5xx at start is retried with backoff and the bot then runs (and stops on SIGTERM).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio

from adapters.common.startup import PlatformRejected
from adapters.discord.client import FuziDiscordClient
from tests.fakes.discord_server import fake_discord  # noqa: F401
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_discord import settings_for
from tests.helpers_process import child_env, free_port, spawn_fuzi

TOKEN = "987654321:AAHsecretSECRETsecret-token_0123456789"


async def start_bot(tmp_path: Path, tg: FakeTelegram, **extra: str) -> asyncio.subprocess.Process:
    env = child_env(
        tmp_path / "home",
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=tg.base_url,
        TELEGRAM_POLL_TIMEOUT_S="1",
        **extra,
    )
    return await spawn_fuzi("run", "telegram", cwd=tmp_path, env=env)


@pytest.mark.processes
async def test_a_rejected_token_is_one_line_without_the_token(tmp_path, tg):
    tg.fail("getMe", status=401)
    proc = await start_bot(tmp_path, tg)
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    out, err = out.decode(), err.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and "TELEGRAM_BOT_TOKEN" in err
    assert [line for line in err.splitlines() if line.startswith("fuzi:")] == [
        "fuzi: Telegram rejected the bot token: check TELEGRAM_BOT_TOKEN (BotFather, /token)"
    ]
    secret = TOKEN.split(":")[1]
    assert secret not in out and secret not in err


async def readyz(port: int) -> tuple[int, dict]:
    try:
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/readyz") as response:
            return response.status, await response.json()
    except aiohttp.ClientError:
        return 0, {}


@pytest.mark.processes
async def test_bot_api_down_at_start_is_retried_and_the_bot_runs(tmp_path, tg):
    tg.fail("getMe", status=502, times=2)
    port = free_port()
    proc = await start_bot(tmp_path, tg, FUZI_METRICS_PORT=str(port))
    try:
        seen = set()
        async with asyncio.timeout(120):
            while not tg.calls_to("getUpdates"):  # polling: it is up
                status, body = await readyz(port)
                if status:
                    seen.add((status, body["checks"].get("telegram")))
                await asyncio.sleep(0.1)
        assert (503, "unreachable") in seen  # not ready while Telegram was being retried
        status, body = await readyz(port)
        assert status == 200 and body["status"] == "ready" and body["checks"]["telegram"] == "ok"
        assert [c.status for c in tg.calls_to("getMe")][:3] == [502, 502, 200]
        assert proc.returncode is None
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    err = err.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and err.count("platform_unreachable") == 2
    assert TOKEN.split(":")[1] not in err + out.decode()


async def test_discord_rejected_token_is_platform_rejected_without_the_token(fake_discord):
    fake_discord.fail_next("GET", r"/users/@me$", status=401)
    client = FuziDiscordClient(settings_for(fake_discord), ScriptedEngine())
    try:
        with pytest.raises(PlatformRejected) as info:
            await asyncio.wait_for(client.start_with_endpoints("MTIz.secret-discord-token"), 10)
    finally:
        await client.close()
    assert "DISCORD_BOT_TOKEN" in str(info.value) and "secret" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__
