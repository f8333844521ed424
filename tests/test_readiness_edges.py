"""/readyz tells the truth: Redis down is "degraded" (200: Fuzi fails open on it), and the log redactor
knows every configured secret, passwords in the database and Redis URLs included."""

from __future__ import annotations

import dataclasses
import socket

import httpx
import pytest
from redis.asyncio import Redis

from adapters.common.metrics import FuziMetrics
from adapters.telegram.settings import TelegramSettings
from adapters.web.settings import WebSettings
from bot.logging import secret_redactor
from bot.settings import Settings
from bot.settings.database import RedisSettings
from bot.web import build_ops_app
from core.guards.redact import MASK
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_process import free_port
from tests.helpers_web import build_retriever, serving, web_runtime


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


async def test_redis_down_is_degraded_not_unready(tmp_path, fake_llm, retriever):
    metrics = FuziMetrics()
    dead = Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=1)
    async with web_runtime(tmp_path, fake_llm, retriever, metrics) as runtime:
        runtime = dataclasses.replace(runtime, redis=dead)
        async with serving(build_ops_app(runtime, metrics)) as base, httpx.AsyncClient(timeout=10) as client:
            ready = await client.get(f"{base}/readyz")
    await dead.aclose()
    assert ready.status_code == 200, ready.text
    assert ready.json()["status"] == "degraded" and ready.json()["checks"]["redis"] == "degraded"
    assert ready.json()["checks"]["storage"] == "ok"


def test_the_redactor_masks_every_configured_secret():
    settings = Settings(
        database_url="postgresql+psycopg://fuzi:pgpass%21@db.internal:5432/fuzi",
        redis=RedisSettings(url="redis://:rdpass9@cache.internal:6379/0"),
        telegram=TelegramSettings(webhook_secret="hook-secret-1"),
        web=WebSettings(jwt_secret="jwt-secret-2" * 3),
    )
    redactor = secret_redactor(settings)
    line = f"pgpass! rdpass9 hook-secret-1 {'jwt-secret-2' * 3} pgpass%21"
    assert redactor.redact(line) == " ".join([MASK] * 5)
    # wherever a URL is printed (a driver's error, a settings dump), its password goes, however short
    assert (
        redactor.redact("could not connect: postgresql://u:pw@h/db") == f"could not connect: postgresql://u:{MASK}@h/db"
    )
    assert redactor.redact("redis://:x@h:6379") == f"redis://:{MASK}@h:6379"
    assert redactor.redact("see https://example.org/a@b") == "see https://example.org/a@b"
