"""Start-up with the database or Redis unreachable: one line per attempt (no traceback), retried with
backoff, /readyz 503 meanwhile; the process serves once the database answers."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest
import pytest_asyncio

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_db import postgres_url  # noqa: F401
from tests.helpers_process import free_port
from tests.helpers_replicas import Replica, TcpProxy, replica_env

pytestmark = pytest.mark.processes


@pytest.mark.timeout(300)
async def test_database_and_redis_down_at_start_one_line_each_then_it_starts(tmp_path, tg, fake_llm, postgres_url):  # noqa: F811
    proxy = TcpProxy("127.0.0.1", 5432)  # not listening yet: the database is down at start
    home = tmp_path / "home"
    home.mkdir()
    url = postgres_url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
    dead_redis = f"redis://:redispass99@127.0.0.1:{free_port()}/0"
    replica = Replica(replica_env(home, url, dead_redis, "fuzi:", tg.base_url, fake_llm.base_url), tmp_path / "r.log")
    try:
        async with aiohttp.ClientSession() as session:
            deadline = time.monotonic() + 120
            while replica.tail(100_000).count("storage_unreachable") < 2:  # retried, one line each
                assert time.monotonic() < deadline and replica.proc.poll() is None, replica.tail()
                await asyncio.sleep(0.5)
            status, body = await replica.readyz(session)
            assert status == 503 and body["checks"]["storage"] == "unreachable", (status, body)
            await proxy.start()
            await replica.ready(session, timeout=120)
            _, body = await replica.readyz(session)
            assert body["status"] == "degraded" and body["checks"]["redis"] == "degraded", body
        log = replica.tail(200_000)
        assert "Traceback" not in log, log[-3000:]
        assert "storage_reached" in log and "redispass99" not in log
    finally:
        replica.stop()
        await proxy.aclose()
