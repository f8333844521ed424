"""A send rate shared by every process: N bots together stay under one platform limit.

`RedisPace.reserve()` books the next free send slot of a bot-wide schedule (GCRA: one "theoretical
arrival time" key in Redis, advanced by one interval per send inside a Lua script on Redis' clock)
and returns how long this process must wait for it. One round trip per chat request.

Redis unreachable: `reserve` returns 0 (fail open for pacing: each process still paces itself, so
N processes may together send up to N times the rate, and a 429 then pauses only the chat it hit),
logged as `pace_redis_down`.
"""

from __future__ import annotations

from typing import Protocol

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

log = structlog.get_logger(__name__)

_RESERVE = """
local t = redis.call('TIME'); local now = t[1] * 1000000 + t[2]
local interval = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
redis.call('SET', KEYS[1], tat + interval, 'PX', math.floor(interval / 1000) * 10 + 1000)
return tat - now
"""


class SharedPace(Protocol):
    """Books send slots on a schedule shared by every process."""

    async def reserve(self) -> float:
        """Seconds to wait before sending in the slot just booked (0: now)."""
        ...


class RedisPace:
    """`SharedPace` in Redis.

    Args:
        redis_url: e.g. ``redis://host:6379/0``.
        key: the schedule's key (one per bot and limit, e.g. ``fuzi:pace:telegram``).
        max_per_s: sends per second across all processes, evenly spaced.
    """

    def __init__(self, redis_url: str, key: str, max_per_s: float) -> None:
        self._redis = Redis.from_url(redis_url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._script = self._redis.register_script(_RESERVE)
        self._key = key
        self._interval_us = max(1, int(1_000_000 / max_per_s))
        self._down = False

    async def reserve(self) -> float:
        try:
            wait_us = await self._script(keys=[self._key], args=[self._interval_us])
        except RedisError as exc:
            if not self._down:
                log.error("pace_redis_down", error=type(exc).__name__, policy="fail_open")
            self._down = True
            return 0.0
        if self._down:
            log.info("pace_redis_recovered")
        self._down = False
        return int(wait_us) / 1_000_000

    async def aclose(self) -> None:
        await self._redis.aclose()
