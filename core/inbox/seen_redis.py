"""`Seen` shared by every process through Redis: one `SET key 1 NX EX ttl` per id. Redis unreachable:
the id counts as new (fail open: a rare duplicate answer is better than dropping every message),
logged as `seen_redis_down`.
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.exceptions import RedisError

from core.failopen import FailOpen


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
