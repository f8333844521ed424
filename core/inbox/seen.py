""" "Have we seen this id before?" — so an update delivered twice (Telegram retries a webhook that was
not acknowledged in time; N replicas may each get a copy) is handled once.

`InMemorySeen` is for one process; `core.inbox.seen_redis.RedisSeen` shares the answer between processes
(a module of its own, so that the embedded default never imports redis-py).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Protocol


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
