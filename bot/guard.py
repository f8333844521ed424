"""The guard: per-person quota, injection detector, output checker, usage and the second opinion."""

from __future__ import annotations

from bot.settings import Settings
from core.guards import FuziGuard, InjectionDetector, InMemoryRateLimiter, OutputChecker, Quota, UsageStore
from core.guards.limits import RateLimiter
from core.guards.second_opinion import SecondOpinion
from core.guards.semantic import SEMANTIC_BUNDLED, SemanticClassifier, SemanticModelError, SemanticScreen
from core.llm.types import LLM


def semantic_screen(embedder: object | None) -> SemanticScreen | None:
    """The detector's semantic feature over the retrieval embedder's query vectors (docs/guards.md),
    or None (the n-gram classifier then decides alone): no embedder, one without a synchronous query
    call, another model than the trained one, or no model file."""
    embed = getattr(embedder, "embed_query_sync", None)
    if embed is None or not SEMANTIC_BUNDLED.exists():
        return None
    try:
        model = SemanticClassifier.load()
    except SemanticModelError:
        return None
    if getattr(embedder, "model_name", None) != model.embedder:
        return None
    return SemanticScreen.regression(model, embed)


def quota(settings: Settings) -> Quota:
    """Messages per person per minute and day, per group per minute."""
    g = settings.guards
    return Quota(per_minute=g.per_minute, per_day=g.per_day, group_per_minute=g.per_group_per_minute)


def build_guard(
    settings: Settings, engine, llm: LLM | None = None, limiter: RateLimiter | None = None, embedder: object = None
) -> FuziGuard:
    g = settings.guards
    second = None
    if llm is not None and g.second_opinion and g.injection_classifier:
        second = SecondOpinion(llm)
    usage = UsageStore(engine, tz=g.zone)
    return FuziGuard(
        limiter or InMemoryRateLimiter(quota(settings)),
        detector=InjectionDetector(
            classifier="bundled" if g.injection_classifier else None, semantic=semantic_screen(embedder)
        ),
        output=OutputChecker(),
        usage=usage,
        daily_token_budget=g.daily_token_budget,
        second_opinion=second,
    )
