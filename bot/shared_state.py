"""The parts N processes share, in Redis when FUZI_REDIS_URL is set, else in this process's memory:
per-person limits, the one reply in flight per person, update ids seen, Telegram's send pace and the
per-chat outbound budgets."""

from __future__ import annotations

from adapters.common.budget import BudgetRegistry
from adapters.common.pace import RedisPace
from bot.guard import quota
from bot.settings import Settings
from core.admission import RunningReplies
from core.guards import InMemoryRateLimiter
from core.guards.limits import RateLimiter
from core.replies_redis import RedisRunningReplies
from core.seen import InMemorySeen, RedisSeen, Seen


def build_shared_state(settings: Settings) -> tuple[RateLimiter, RunningReplies]:
    """Per-person limits and the one-reply-in-flight owner: in memory, or in Redis when FUZI_REDIS_URL is set."""
    r, q = settings.redis, quota(settings)
    if not r.url:
        return InMemoryRateLimiter(q), RunningReplies()
    from core.guards.limits_redis import RedisRateLimiter

    return (
        RedisRateLimiter(q, r.url, prefix=r.prefix),
        RedisRunningReplies(r.url, prefix=r.prefix, lease_s=r.reply_lease_s),
    )


def build_seen(settings: Settings) -> Seen:
    """Which platform update ids were handled: in process, or shared in Redis when FUZI_REDIS_URL is set."""
    if settings.redis.url:
        return RedisSeen(settings.redis.url, prefix=settings.redis.prefix)
    return InMemorySeen()


def build_pace(settings: Settings) -> RedisPace | None:
    """Telegram's bot-wide send schedule shared by N processes (None: each process paces itself)."""
    if not settings.redis.url:
        return None
    return RedisPace(settings.redis.url, f"{settings.redis.prefix}pace:telegram", settings.telegram.max_requests_per_s)


def build_budgets(settings: Settings, platform: str) -> BudgetRegistry:
    """Per-chat outbound budgets of ``platform``: in process, or shared in Redis when FUZI_REDIS_URL is set."""
    if not settings.redis.url:
        return BudgetRegistry()
    from adapters.common.budget_redis import RedisChatGate

    return BudgetRegistry(gate=RedisChatGate(settings.redis.url, f"{settings.redis.prefix}budget:{platform}:"))
