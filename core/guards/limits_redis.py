"""`RateLimiter` shared by every process through Redis (FUZI_REDIS_URL).

The sliding windows (per person per minute and per day, per group per minute) are the `limits`
library's moving windows on its Redis storage: each `hit` is one atomic Lua script, so N
processes counting the same person never lose an update and exactly the quota is admitted. The
windows are hit in order (group, person per minute, person per day; one round trip each) and the
first that refuses ends it; windows hit before it keep that count. So a message refused by the
person's minute window costs the group one count, and one refused by the day window costs the minute
window one: the price of two round trips per admitted message instead of four (test, then hit). One
reply in flight per person is not counted here: see `core.replies_redis.RedisRunningReplies`.

Redis unreachable: requests are admitted (fail open: a chat bot that stops answering because its
rate-limit cache is down is worse than a few requests over quota), logged as `limits_redis_down`,
and counting resumes when Redis answers again.
"""

from __future__ import annotations

import contextlib
import time

import structlog
from limits import RateLimitItemPerDay, RateLimitItemPerMinute
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter

from core.guards.limits import LimitDecision, Quota

log = structlog.get_logger(__name__)


class RedisRateLimiter:
    """`RateLimiter` over Redis; the same contract as `InMemoryRateLimiter`.

    Args:
        quota: the limits.
        redis_url: e.g. ``redis://host:6379/0``.
        prefix: key prefix (one per deployment; tests use one per test).
    """

    def __init__(self, quota: Quota, redis_url: str, *, prefix: str = "fuzi:") -> None:
        self.quota = quota
        storage_url = redis_url if redis_url.startswith("async+") else f"async+{redis_url}"
        self._storage = RedisStorage(
            storage_url,
            implementation="redispy",
            key_prefix=f"{prefix}limits",
            wrap_exceptions=True,
            socket_timeout=1.0,
            socket_connect_timeout=1.0,
        )
        self._windows = MovingWindowRateLimiter(self._storage)
        self._down = False

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
            self._mark_down(exc)
            return LimitDecision(True)
        self._mark_up()
        return decision

    async def _acquire(self, person_key: str, group_key: str | None) -> LimitDecision:
        for item, key, reason in self._limits(person_key, group_key):
            if not await self._windows.hit(item, key):
                return LimitDecision(False, reason, await self._retry_after(item, key))
        return LimitDecision(True)

    async def _retry_after(self, item, key: str) -> float:
        stats = await self._windows.get_window_stats(item, key)
        return max(stats.reset_time - time.time(), 0.0)

    async def aclose(self) -> None:
        """Close the storage's connections (the redis-py client inside `limits`' storage bridge)."""
        client = getattr(getattr(self._storage, "bridge", None), "storage", None)
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()

    def _mark_down(self, exc: BaseException) -> None:
        if not self._down:
            log.error("limits_redis_down", error=type(exc).__name__, policy="fail_open")
        self._down = True

    def _mark_up(self) -> None:
        if self._down:
            log.info("limits_redis_recovered")
        self._down = False
