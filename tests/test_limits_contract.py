"""One contract for both `RateLimiter` implementations: in memory, and Redis (real server, own prefix)."""

from __future__ import annotations

import asyncio
import socket

import pytest
from structlog.testing import capture_logs

from core.guards.limits import InMemoryRateLimiter, Quota
from core.guards.limits_redis import RedisRateLimiter
from tests.helpers_db import redis_client, redis_prefix  # noqa: F401

QUOTA = dict(per_minute=15, per_day=150, group_per_minute=30)


@pytest.fixture(params=["memory", "redis"])
def make_limiter(request, redis_client):
    """A factory of limiters sharing one store: Redis ones share the server (as N processes would)."""
    made: list = []

    def factory(**quota):
        q = Quota(**(QUOTA | quota))
        if request.param == "memory":
            if not made:
                made.append(InMemoryRateLimiter(q))
            return made[0]  # one process: one limiter
        url, prefix = request.getfixturevalue("redis_prefix")
        return RedisRateLimiter(q, redis_client(url), prefix=prefix)

    return factory


async def admit_and_finish(limiter, person="p1", group=None):
    return await limiter.acquire(person, group)


async def test_exactly_the_16th_in_a_minute_is_refused(make_limiter):
    a, b = make_limiter(), make_limiter()
    decisions = [await admit_and_finish(a if i % 2 else b) for i in range(16)]
    assert [d.allowed for d in decisions] == [True] * 15 + [False]
    assert decisions[-1].reason == "per_minute" and 0 < decisions[-1].retry_after_s <= 60
    assert (await admit_and_finish(a, person="p2")).allowed  # another person is not affected


async def test_group_window_counts_everyone_in_the_group(make_limiter):
    limiter = make_limiter(group_per_minute=3)
    results = [await admit_and_finish(limiter, person=f"p{i}", group="g") for i in range(4)]
    assert [r.allowed for r in results] == [True, True, True, False] and results[-1].reason == "group_per_minute"
    assert (await admit_and_finish(limiter, person="p9", group="other")).allowed


async def test_concurrent_requests_admit_exactly_the_quota(make_limiter):
    a, b = make_limiter(), make_limiter()
    decisions = await asyncio.gather(*((a if i % 2 else b).acquire("p1", None) for i in range(40)))
    assert sum(d.allowed for d in decisions) == 15


async def test_redis_down_fails_open(redis_client):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    limiter = RedisRateLimiter(Quota(**QUOTA), redis_client(f"redis://127.0.0.1:{port}/0"), prefix="down:")
    with capture_logs() as logs:
        decisions = [await limiter.acquire("p1", None) for _ in range(20)]
    assert all(d.allowed for d in decisions)
    assert [e["event"] for e in logs].count("limits_redis_down") == 1  # once, not once a message
