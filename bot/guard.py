"""The guard: per-person quota, injection detector, output checker, usage and the second opinion."""

from __future__ import annotations

from bot.settings import Settings
from core.guards import FuziGuard, InjectionDetector, InMemoryRateLimiter, OutputChecker, Quota, UsageStore
from core.guards.limits import RateLimiter
from core.guards.second_opinion import SecondOpinion
from core.llm.types import LLM


def quota(settings: Settings) -> Quota:
    """Messages per person per minute and day, per group per minute."""
    g = settings.guards
    return Quota(per_minute=g.per_minute, per_day=g.per_day, group_per_minute=g.per_group_per_minute)


def build_guard(settings: Settings, engine, llm: LLM | None = None, limiter: RateLimiter | None = None) -> FuziGuard:
    g = settings.guards
    second = None
    if llm is not None and g.second_opinion and g.injection_classifier:
        second = SecondOpinion(llm)
    usage = UsageStore(engine, tz=g.zone)
    return FuziGuard(
        limiter or InMemoryRateLimiter(quota(settings)),
        detector=InjectionDetector(classifier="bundled" if g.injection_classifier else None),
        output=OutputChecker(),
        usage=usage,
        daily_token_budget=g.daily_token_budget,
        second_opinion=second,
    )
