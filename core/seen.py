""" "Have we seen this id before?" — so an update delivered twice (Telegram retries a webhook that was
not acknowledged in time; N replicas may each get a copy) is handled once.

`InMemorySeen` is for one process; `RedisSeen` shares the answer between processes with one
`SET key 1 NX EX ttl` per id. Redis unreachable: the id counts as new (fail open: a rare duplicate
answer is better than dropping every message), logged as `seen_redis_down`.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from core.failopen import FailOpen


class Seen(Protocol):
    """Remembers ids for a while; `first` is True exactly once per id (within the memory)."""

    async def first(self, key: str) -> bool:
        """True the first time `key` is offered, False for every repeat."""
        ...


class InMemorySeen:
    """`Seen` for one process: the newest `max_keys` ids, each for at most `ttl_s` seconds."""

    def __init__(self, *, max_keys: int = 100_000, ttl_s: float = 86_400.0) -> None:
        self._keys: OrderedDict[str, float] = OrderedDict()
        self._max = max_keys
        self._ttl = ttl_s

    async def first(self, key: str) -> bool:
        now = time.monotonic()
        while self._keys and (len(self._keys) >= self._max or next(iter(self._keys.values())) <= now - self._ttl):
            self._keys.popitem(last=False)
        if key in self._keys:
            return False
        self._keys[key] = now
        return True


class RedisSeen:
    """`Seen` shared by every process through Redis.

    Args:
        redis: the client (built once in bot/shared_state.py; closed there).
        prefix: key prefix (one per deployment; tests use one per test).
        ttl_s: how long an id is remembered (Telegram retries an update for about a day at most).
    """

    def __init__(self, redis: Redis, *, prefix: str = "fuzi:", ttl_s: int = 86_400) -> None:
        self._redis = redis
        self._prefix = f"{prefix}seen:"
        self._ttl = ttl_s
        self._health = FailOpen("seen")

    async def first(self, key: str) -> bool:
        try:
            new = await self._redis.set(self._prefix + key, 1, nx=True, ex=self._ttl)
        except RedisError as exc:
            self._health.failed(exc)
            return True
        self._health.answered()
        return bool(new)
