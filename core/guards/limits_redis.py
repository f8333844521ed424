"""`RateLimiter` shared by every process through Redis (FUZI_REDIS_URL).

The sliding windows (per person per minute and per day, per group per minute) are the `limits`
library's moving windows on its Redis storage: each `hit` is one atomic Lua script, so N
processes counting the same person never lose an update and exactly the quota is admitted. The
windows are hit in order (group, person per minute, person per day; one round trip each) and the
first that refuses ends it; windows hit before it keep that count. So a message refused by the
person's minute window costs the group one count, and one refused by the day window costs the minute
window one: the price of two round trips per admitted message instead of four (test, then hit). One
reply in flight per person is not counted here: see `core.engine.running_redis.RedisRunningReplies`.

Redis unreachable: requests are admitted (fail open: a chat bot that stops answering because its
rate-limit cache is down is worse than a few requests over quota), logged as `limits_redis_down`,
and counting resumes when Redis answers again.
"""

from __future__ import annotations

import time
from typing import Any

from limits import RateLimitItemPerDay, RateLimitItemPerMinute
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from redis.asyncio import Redis

from core.failopen import FailOpen
from core.guards.limits import LimitDecision, Quota


def limits_storage(redis: Redis, *, key_prefix: str) -> RedisStorage:
    """The `limits` library's Redis storage over `redis`'s connection pool (no client of its own)."""
    pool: dict[str, Any] = {"connection_pool": redis.connection_pool}  # typed as str/float/bool options there
    return RedisStorage(
        "async+redis://",  # not dialled: the storage's client is built on the given pool
        implementation="redispy",
        key_prefix=key_prefix,
        wrap_exceptions=True,
        **pool,
    )


class RedisRateLimiter:
    """`RateLimiter` over Redis; the same contract as `InMemoryRateLimiter`.

    Args:
        quota: the limits.
        redis: the client (built once in bot/shared_state.py; closed there): the windows use its
            connection pool.
        prefix: key prefix (one per deployment; tests use one per test).
    """

    def __init__(self, quota: Quota, redis: Redis, *, prefix: str = "fuzi:") -> None:
        self.quota = quota
        self._windows = MovingWindowRateLimiter(limits_storage(redis, key_prefix=f"{prefix}limits"))
        self._health = FailOpen("limits")

    def _limits(self, person_key: str, group_key: str | None):
        """The windows in the order they are hit: the group's first, the person's day last."""
        q = self.quota
        if group_key is not None and q.group_per_minute is not None:
            yield RateLimitItemPerMinute(q.group_per_minute), group_key, "group_per_minute"
        yield RateLimitItemPerMinute(q.per_minute), person_key, "per_minute"
        yield RateLimitItemPerDay(q.per_day), person_key, "per_day"

    async def acquire(self, person_key: str, group_key: str | None) -> LimitDecision:
        """See `RateLimiter.acquire`: each window is hit atomically, in order, until one refuses."""
        try:
            decision = await self._acquire(person_key, group_key)
        except Exception as exc:  # noqa: BLE001 - limits wraps storage errors; redis-py raises its own
            self._health.failed(exc)
            return LimitDecision(True)
        self._health.answered()
        return decision

    async def _acquire(self, person_key: str, group_key: str | None) -> LimitDecision:
        for item, key, reason in self._limits(person_key, group_key):
            if not await self._windows.hit(item, key):
                return LimitDecision(False, reason, await self._retry_after(item, key))
        return LimitDecision(True)

    async def _retry_after(self, item, key: str) -> float:
        stats = await self._windows.get_window_stats(item, key)
        return max(stats.reset_time - time.time(), 0.0)
