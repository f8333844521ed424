"""One Redis seam: only bot/shared_state.py builds a Redis client; every shared part reports an
outage through `core.failopen.FailOpen` (one line down, one line back)."""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path
from types import SimpleNamespace

from structlog.testing import capture_logs

from bot.settings import Settings
from bot.settings.database import RedisSettings
from bot.shared_state import REDIS_CONNECTIONS, lookup_limits
from core.engine.lookup import PassageLookup
from core.failopen import FailOpen
from core.language.script import ScriptConverter
from tests.helpers_db import redis_client, redis_prefix  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
SEAM = Path("bot/shared_state.py")
BUILDS_A_CLIENT = re.compile(r"\bRedis\.from_url\(|\bRedis\(|storage_from_string\(|\bRedisStorage\(\s*[\"']?[a-z]")


def test_only_the_seam_builds_a_redis_client():
    builders = [
        str(path.relative_to(ROOT))
        for package in ("core", "adapters", "bot", "data")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.relative_to(ROOT) != SEAM and BUILDS_A_CLIENT.search(path.read_text(encoding="utf-8"))
    ]
    # the limits storage is built on a given client's pool, never from a URL of its own
    assert builders == ["core/guards/limits_redis.py"], builders
    assert "connection_pool" in (ROOT / "core/guards/limits_redis.py").read_text(encoding="utf-8")


def test_an_outage_is_one_line_down_and_one_line_back():
    health = FailOpen("seen")
    with capture_logs() as logs:
        for _ in range(3):
            health.failed(ConnectionError("refused"), op="set")
        assert health.down
        health.answered()
        health.answered()
    assert logs == [
        {
            "event": "seen_redis_down",
            "op": "set",
            "error": "ConnectionError",
            "policy": "fail_open",
            "log_level": "error",
        },
        {"event": "seen_redis_recovered", "log_level": "info"},
    ]
    assert not health.down


def test_the_policy_is_said_with_the_first_failure():
    with capture_logs() as logs:
        FailOpen("breaker", policy="local_breaker").failed(TimeoutError())
    assert logs[0]["event"] == "breaker_redis_down" and logs[0]["policy"] == "local_breaker"


def _settings(prefix: str) -> Settings:
    return Settings(redis=RedisSettings(prefix=prefix))


class NoPassages:
    async def search(self, query: str, *, k: int = 3, corpus: str = "all"):
        return SimpleNamespace(results=[])


async def test_look_up_limits_count_across_replicas_on_the_shared_client(redis_prefix, redis_client):
    """The look-up windows ride on the one client's pool (async, off no thread): 20 per 10 s per person,
    counted together by two replicas, each with its own client as each process has; the keys are the
    deployment's (under FUZI_REDIS_PREFIX), so two deployments on one Redis count apart."""
    url, prefix = redis_prefix
    settings = _settings(prefix)
    a, b = (
        PassageLookup(NoPassages(), ScriptConverter(), limits=lookup_limits(settings, redis_client(url))) for _ in "ab"
    )
    results = [await (a if i % 2 else b).lookup("学而", account="telegram:7") for i in range(21)]
    assert [r.limited for r in results] == [False] * 20 + [True]
    assert not (await a.lookup("学而", account="telegram:8")).limited
    other = PassageLookup(
        NoPassages(), ScriptConverter(), limits=lookup_limits(_settings(f"{prefix}b:"), redis_client(url))
    )
    assert not (await other.lookup("学而", account="telegram:7")).limited  # another deployment's counters
    keys = [key.decode() async for key in redis_client(url).scan_iter(match="*fuzi-lookup*telegram:7*")]
    assert keys and all(key.startswith(f"{prefix}lookup:") or key.startswith(f"{prefix}b:lookup:") for key in keys)


async def test_look_ups_are_served_when_redis_is_down(redis_client):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = redis_client(f"redis://127.0.0.1:{port}/0")
    lookup = PassageLookup(NoPassages(), ScriptConverter(), limits=lookup_limits(_settings("down:"), down))
    with capture_logs() as logs:
        for _ in range(3):
            assert not (await lookup.lookup("学而", account="p")).limited  # fail open: a look-up is cheap
    assert [e["event"] for e in logs if e["event"].startswith("lookup_limit")] == ["lookup_limit_redis_down"]


async def test_a_burst_of_commands_waits_for_the_pool_instead_of_opening_a_connection_each(redis_prefix, redis_client):
    url, _ = redis_prefix
    # the pool's bound is the point, not the deadline: a loaded machine may take longer than the
    # production second to connect 32 sockets, which would fail the burst for the wrong reason
    client = redis_client(url, timeout_s=10.0)
    ids = await asyncio.gather(*(client.client_id() for _ in range(100)))  # 100 chats claimed at once
    assert len(ids) == 100 and len(set(ids)) <= REDIS_CONNECTIONS  # unbounded: ~100 connections opened
