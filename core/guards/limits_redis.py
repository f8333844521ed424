"""`RateLimiter` shared by every process through Redis (FUZI_REDIS_URL).

The sliding windows (per person per minute and per day, per group per minute) are the `limits`
library's moving windows on its Redis storage: each `hit` is one atomic Lua script, so N
processes counting the same person never lose an update and exactly the quota is admitted. The
in-flight count is one small atomic script (check and increment) on a key that expires after
`in_flight_ttl_s`, so a process killed mid-reply frees the slot by itself.

Redis unreachable: requests are admitted (fail open: a chat bot that stops answering because its
rate-limit cache is down is worse than a few requests over quota), logged as `limits_redis_down`,
and counting resumes when Redis answers again.
"""

from __future__ import annotations

import asyncio
import time

import structlog
from limits import RateLimitItemPerDay, RateLimitItemPerMinute
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from redis.asyncio import Redis
from redis.exceptions import RedisError

from core.guards.limits import LimitDecision, Quota

log = structlog.get_logger(__name__)

_TAKE_SLOT = """
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""
_GIVE_SLOT = """
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n <= 1 then redis.call('DEL', KEYS[1]) else redis.call('DECR', KEYS[1]) end
return 1
"""


class RedisRateLimiter:
    """`RateLimiter` over Redis; the same contract as `InMemoryRateLimiter`.

    Args:
        quota: the limits.
        redis_url: e.g. ``redis://host:6379/0``.
        prefix: key prefix (one per deployment; tests use one per test).
        in_flight_ttl_s: an in-flight slot not released within this time expires (crashed process).
    """

    def __init__(self, quota: Quota, redis_url: str, *, prefix: str = "fuzi:", in_flight_ttl_s: float = 180.0) -> None:
        self.quota = quota
        self._prefix = prefix
        self._in_flight_ttl = max(1, int(in_flight_ttl_s))
        storage_url = redis_url if redis_url.startswith("async+") else f"async+{redis_url}"
        self._storage = RedisStorage(storage_url, implementation="redispy", key_prefix=f"{prefix}limits",
                                     wrap_exceptions=True, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._windows = MovingWindowRateLimiter(self._storage)
        self._redis = Redis.from_url(redis_url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._take = self._redis.register_script(_TAKE_SLOT)
        self._give = self._redis.register_script(_GIVE_SLOT)
        self._pending: set[asyncio.Task] = set()
        self._down = False

    def _limits(self, person_key: str, group_key: str | None):
        q = self.quota
        yield RateLimitItemPerDay(q.per_day), person_key, "per_day"
        yield RateLimitItemPerMinute(q.per_minute), person_key, "per_minute"
        if group_key is not None and q.group_per_minute is not None:
            yield RateLimitItemPerMinute(q.group_per_minute), group_key, "group_per_minute"

    async def acquire(self, person_key: str, group_key: str | None) -> LimitDecision:
        """See `RateLimiter.acquire`. Every window is tested, then hit atomically one by one."""
        try:
            decision = await self._acquire(person_key, group_key)
        except Exception as exc:  # noqa: BLE001 - limits wraps storage errors; redis-py raises its own
            self._mark_down(exc)
            return LimitDecision(True)
        self._mark_up()
        return decision

    async def _acquire(self, person_key: str, group_key: str | None) -> LimitDecision:
        q = self.quota
        slot = self._key("inflight", person_key)
        if not await self._take(keys=[slot], args=[q.max_in_flight, self._in_flight_ttl]):
            return LimitDecision(False, "in_flight", None)
        waits: list[tuple[float, str]] = []
        items = list(self._limits(person_key, group_key))
        for item, key, reason in items:
            if not await self._windows.test(item, key):
                waits.append((await self._retry_after(item, key), reason))
        if not waits:
            for item, key, reason in items:
                if not await self._windows.hit(item, key):  # another process took the last place meanwhile
                    waits.append((await self._retry_after(item, key), reason))
                    break
        if not waits:
            return LimitDecision(True)
        await self._give(keys=[slot])
        wait, reason = max(waits)
        return LimitDecision(False, reason, wait)

    async def _retry_after(self, item, key: str) -> float:
        stats = await self._windows.get_window_stats(item, key)
        return max(stats.reset_time - time.time(), 0.0)

    def release(self, person_key: str) -> None:
        """See `RateLimiter.release` (the decrement runs as a task: the port's release is synchronous)."""
        task = asyncio.get_running_loop().create_task(self._release(person_key))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _release(self, person_key: str) -> None:
        try:
            await self._give(keys=[self._key("inflight", person_key)])
        except RedisError as exc:  # the slot expires by itself after in_flight_ttl_s
            self._mark_down(exc)

    async def in_flight(self, person_key: str) -> int:
        """Replies currently counted in flight for this person (all processes)."""
        value = await self._redis.get(self._key("inflight", person_key))
        return int(value or 0)

    async def aclose(self) -> None:
        """Wait for pending releases and close the connections."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        await self._redis.aclose()

    def _key(self, kind: str, key: str) -> str:
        return f"{self._prefix}{kind}:{key}"

    def _mark_down(self, exc: BaseException) -> None:
        if not self._down:
            log.error("limits_redis_down", error=type(exc).__name__, policy="fail_open")
        self._down = True

    def _mark_up(self) -> None:
        if self._down:
            log.info("limits_redis_recovered")
        self._down = False
