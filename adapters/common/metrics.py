"""Prometheus metrics for every Fuzi process, in one place (from the core: events, ports, wrapper bases).

:class:`FuziMetrics` defines the metrics on its own registry; the parts record into it:

* :class:`ObservedEngine` wraps the engine an adapter drives and records, from the event stream
  alone, replies by outcome and fallback level, time to first visible text and to the end, and guard
  refusals by reason;
* :class:`TimedLLM` and :class:`TimedSearch` wrap the LLM port and the passage search (built in
  ``bot/``) and record their latency;
* adapters record 429s they receive (``rate_limited(platform)``);
* the LLM circuit breaker's state is read when Prometheus scrapes (``watch_breaker``).

Outcome words: ``answered`` (a final reply; ``level`` 0/1/2), a notice reason (``busy``,
``rate_limited``, ``injection``, ``bad_input``, ``error`` …; level ``-``), ``command``, and
``cancelled`` for a stream that ended without a final reply or notice (/cancel, a client gone).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import Any, Literal, Protocol, get_args

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from core.engine.wrapper import EngineWrapper
from core.events import FinalReply, Notice, NoticeReason, ReplyEvent, TextDelta
from core.llm.types import LLM, Completion, StreamEvent
from core.llm.wrapper import LLMCall, WrapperLLM
from core.ports import Engine
from core.shown_in import ShownIn
from core.types import Incoming

CONTENT_TYPE = CONTENT_TYPE_LATEST
# The outcome label's words, derived from the engine's vocabulary: a final reply, a stream that
# ended without one, or a notice reason. Refusals (fuzi_guard_refusals_total) are the notice reasons
# by which the guards turned a message away; every other reason is not a refusal.
ReplyOutcome = Literal["answered", "cancelled"] | NoticeReason
OUTCOMES: tuple[str, ...] = ("answered", "cancelled", *get_args(NoticeReason))
REFUSALS: frozenset[NoticeReason] = frozenset({"bad_input", "injection", "rate_limited"})
BREAKER_STATES = {"closed": 0, "half_open": 1, "open": 2}
_LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)


class RateLimitRecorder(Protocol):
    """Where an adapter counts the 429s its platform answered (FuziMetrics is one)."""

    def rate_limited(self, platform: str, count: int = 1) -> None: ...


class FuziMetrics:
    """Every Fuzi metric, on one registry (a fresh one per instance, so tests never share counters)."""

    def __init__(self, registry: CollectorRegistry | None = None):
        self.registry = r = registry or CollectorRegistry()
        self.replies = Counter(
            "fuzi_replies_total",
            "Replies by platform, outcome and fallback level",
            ["platform", "outcome", "level"],
            registry=r,
        )
        self.first_text = Histogram(
            "fuzi_first_text_seconds",
            "Message to first visible reply text",
            ["platform"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.reply_time = Histogram(
            "fuzi_reply_seconds",
            "Message to the end of the reply",
            ["platform", "outcome"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.retrieval_time = Histogram(
            "fuzi_retrieval_seconds", "One passage search", buckets=_LATENCY_BUCKETS, registry=r
        )
        self.llm_time = Histogram(
            "fuzi_llm_seconds",
            "One LLM call (complete, or a stream to its end)",
            ["call", "ok"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.refusals = Counter(
            "fuzi_guard_refusals_total", "Messages the guards turned away, by reason", ["reason"], registry=r
        )
        self.platform_429 = Counter(
            "fuzi_rate_limited_total", "HTTP 429 received from (or sent by) a platform", ["platform"], registry=r
        )
        self.feedback = Counter(
            "fuzi_reply_feedback_total",
            "Verdicts on answers (reactions, web buttons) by platform and verdict (up/down)",
            ["platform", "verdict"],
            registry=r,
        )
        self.breaker = Gauge(
            "fuzi_llm_breaker_state", "LLM circuit breaker: 0 closed, 1 half-open, 2 open, -1 no LLM", registry=r
        )
        self.breaker.set(-1)

    def watch_breaker(self, state: Callable[[], str | None]) -> None:
        """Read the breaker's state (``closed``/``half_open``/``open``) whenever metrics are scraped."""
        self.breaker.set_function(lambda: BREAKER_STATES.get(state() or "", -1))

    def rate_limited(self, platform: str, count: int = 1) -> None:
        """Count 429s: received from Telegram/Discord, or sent by the web server's per-IP limit."""
        if count > 0:
            self.platform_429.labels(platform).inc(count)

    def exposition(self) -> bytes:
        """The Prometheus text format of every metric."""
        return generate_latest(self.registry)


class ObservedEngine(EngineWrapper):
    """The engine, with every addressed message's reply recorded into ``metrics``; every other call
    passes through (`EngineWrapper`).

    Args:
        engine: the engine the adapter would otherwise drive.
        metrics: where to record.
        clock: monotonic clock.
    """

    def __init__(self, engine: Engine, metrics: FuziMetrics, clock: Callable[[], float] = time.monotonic):
        super().__init__(engine)
        self._metrics, self._clock = metrics, clock

    async def record_feedback(
        self, platform: str, account: str, reaction: str, *, where: ShownIn | None = None, trace_id: str | None = None
    ) -> str:
        """The engine's word on a reaction; a verdict stored is counted in fuzi_reply_feedback_total."""
        outcome = await self.inner.record_feedback(platform, account, reaction, where=where, trace_id=trace_id)
        if outcome in ("up", "down"):
            self._metrics.feedback.labels(platform, outcome).inc()
        return outcome

    async def handle(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]:
        """The engine's events, unchanged; recorded when the stream ends (or is closed early)."""
        started, level, first = self._clock(), "-", False
        outcome: ReplyOutcome = "cancelled"
        try:
            async with aclosing(self.inner.handle(incoming)) as events:
                async for event in events:
                    if isinstance(event, TextDelta) and not first:
                        first = True
                        self._metrics.first_text.labels(incoming.platform).observe(self._clock() - started)
                    elif isinstance(event, FinalReply):
                        outcome, level = "answered", str(event.level)
                    elif isinstance(event, Notice) and event.reason != "no_llm":
                        outcome, level = event.reason, "-"
                    yield event
        finally:
            if incoming.addressed:
                self._record(incoming.platform, outcome, level, self._clock() - started)

    def _record(self, platform: str, outcome: ReplyOutcome, level: str, seconds: float) -> None:
        m = self._metrics
        m.replies.labels(platform, outcome, level).inc()
        if outcome in REFUSALS:
            m.refusals.labels(outcome).inc()
        if outcome not in {"command", "unknown_command"}:
            m.reply_time.labels(platform, outcome).observe(seconds)


class TimedLLM(WrapperLLM):
    """An LLM port that records each call's latency; everything else passes through.

    Args:
        llm: the (breaker-wrapped) LLM.
        metrics: where to record.
    """

    def __init__(self, llm: LLM, metrics: FuziMetrics, clock: Callable[[], float] = time.monotonic):
        super().__init__(llm)
        self._metrics, self._clock = metrics, clock

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def around_complete(self, call: LLMCall) -> Completion:
        started, ok = self._clock(), "false"
        try:
            result = await call.complete(self.inner)
            ok = "true"
            return result
        finally:
            self._metrics.llm_time.labels("complete", ok).observe(self._clock() - started)

    async def around_stream(self, call: LLMCall) -> AsyncGenerator[StreamEvent, None]:
        started, ok = self._clock(), "false"
        try:
            async with aclosing(call.stream(self.inner)) as events:
                async for event in events:
                    yield event
            ok = "true"
        finally:
            self._metrics.llm_time.labels("stream", ok).observe(self._clock() - started)


class TimedSearch:
    """A passage retriever whose ``search`` records its latency; every other method passes through."""

    def __init__(self, retriever: Any, metrics: FuziMetrics, clock: Callable[[], float] = time.monotonic):
        self._retriever, self._metrics, self._clock = retriever, metrics, clock

    def __getattr__(self, name: str) -> Any:
        return getattr(self._retriever, name)

    async def search(self, query: str, **kwargs):
        started = self._clock()
        try:
            result = self._retriever.search(query, **kwargs)
            return await result if inspect.isawaitable(result) else result
        finally:
            self._metrics.retrieval_time.observe(self._clock() - started)
