"""One Redis seam: only bot/shared_state.py builds a Redis client; every shared part reports an
outage through `core.failopen.FailOpen` (one line down, one line back)."""

from __future__ import annotations

import re
from pathlib import Path

from structlog.testing import capture_logs

from core.failopen import FailOpen

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
