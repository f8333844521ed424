"""The parts N processes share, in Redis when FUZI_REDIS_URL is set, else in this process's memory:
per-person limits, the one reply in flight per person, update ids seen, Telegram's send pace, the
per-chat outbound budgets, the media quota, the look-up limits and the LLM breaker's state.

The one Redis seam: `open_redis` builds the process's only client (one connection pool, one
timeout) and every part above gets it handed in; nothing else dials Redis (`fuzi doctor`'s PING
uses `redis_client` too). Each part fails open on its own terms and reports it through
`core.failopen.FailOpen`; the key names are the parts' own, under FUZI_REDIS_PREFIX.

The Redis parts are imported only when a client exists: the embedded default (one process, no
FUZI_REDIS_URL) never imports redis-py (~0.05–0.1 s of a 2-core machine's warm start).
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

from adapters.common.budget import BudgetRegistry
from adapters.telegram.settings import MAX_REQUESTS_PER_S
from bot.guard import quota
from bot.settings import Settings
from core.engine.admission import RunningReplies
from core.guards import InMemoryRateLimiter
from core.guards.limits import RateLimiter
from core.inbox.seen import InMemorySeen, Seen

if TYPE_CHECKING:
    from limits.aio.storage import Storage
    from redis.asyncio import Redis

    from adapters.common.pace import RedisPace

REDIS_TIMEOUT_S = 1.0
"""How long one Redis command (or connecting) may take before the part asking fails open."""
LOOKUP_KEYS = "lookup"
"""The look-up limits' keys: ``<FUZI_REDIS_PREFIX>lookup:…fuzi-lookup…`` (the `limits` library's own
default, ``LIMITS``, would put them outside the deployment's prefix, shared with every deployment)."""


REDIS_CONNECTIONS = 32
"""Connections in one process's pool; a command waits (up to the timeout) for a free one. Unbounded,
a burst of 100 chats opened ~100 connections at once (0.19 s before the first reply could go)."""


def redis_client(url: str, *, timeout_s: float = REDIS_TIMEOUT_S) -> Redis:
    """A client for `url` with its own connection pool of at most `REDIS_CONNECTIONS` (the caller
    closes it: `await client.aclose()`)."""
    from redis.asyncio import BlockingConnectionPool, Redis

    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=timeout_s,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
    )
    return Redis.from_pool(pool)  # closing the client closes its pool


def open_redis(settings: Settings) -> Redis | None:
    """The process's one Redis client, or None without FUZI_REDIS_URL (everything stays in memory)."""
    return redis_client(settings.redis.url) if settings.redis.url else None


async def open_shared_state(
    settings: Settings, redis: Redis | None, stack: AsyncExitStack
) -> tuple[RateLimiter, RunningReplies]:
    """Per-person limits and the one-reply-in-flight owner: in memory, or in Redis — where the owner
    listens for /cancel from other processes until `stack` closes."""
    r, q = settings.redis, quota(settings)
    if redis is None:
        return InMemoryRateLimiter(q), RunningReplies()
    from core.engine.running_redis import RedisRunningReplies
    from core.guards.limits_redis import RedisRateLimiter

    running = RedisRunningReplies(redis, prefix=r.prefix, lease_s=r.reply_lease_s)
    await running.start()
    stack.push_async_callback(running.aclose)
    return RedisRateLimiter(q, redis, prefix=r.prefix), running


def build_seen(settings: Settings, redis: Redis | None) -> Seen:
    """Which platform update ids were handled: in process, or shared in Redis."""
    if redis is None:
        return InMemorySeen()
    from core.inbox.seen_redis import RedisSeen

    return RedisSeen(redis, prefix=settings.redis.prefix)


def build_pace(settings: Settings, redis: Redis | None) -> RedisPace | None:
    """Telegram's bot-wide send schedule shared by N processes (None: each process paces itself)."""
    if redis is None:
        return None
    from adapters.common.pace import RedisPace

    return RedisPace(redis, f"{settings.redis.prefix}pace:telegram", MAX_REQUESTS_PER_S)


def build_budgets(settings: Settings, redis: Redis | None, platform: str) -> BudgetRegistry:
    """Per-chat outbound budgets of ``platform``: in process, or shared in Redis."""
    if redis is None:
        return BudgetRegistry()
    from adapters.common.budget_redis import RedisChatGate

    return BudgetRegistry(gate=RedisChatGate(redis, f"{settings.redis.prefix}budget:{platform}:"))


def lookup_limits(settings: Settings, redis: Redis | None) -> Storage | None:
    """Where the per-person look-up counters live (inline mode, /passage): in Redis, or None for the
    look-up's own, in memory."""
    if redis is None:
        return None
    from core.guards.limits_redis import limits_storage

    return limits_storage(redis, key_prefix=f"{settings.redis.prefix}{LOOKUP_KEYS}")
