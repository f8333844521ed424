"""The one retry policy for LLM calls: tenacity, exponential backoff with jitter, server hints honoured.

Only :class:`TransientFailure` is retried (the client maps 429, 5xx, timeouts and connection errors to
it); anything else — configuration errors, cancellation, bugs — passes straight through. When the
attempts are spent, or the server asks for a wait longer than ``retry_after_max_s``, the caller gets
:class:`~core.llm.errors.LLMUnavailable` chained to the last failure.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import structlog
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from core.llm.budget import current_budget
from core.llm.errors import LLMTimeout, LLMUnavailable

log = structlog.get_logger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a transient LLM failure.

    Attributes:
        attempts: total tries per call, the first included.
        base_s: the first backoff; attempt n waits ``base_s * 2**(n-1)``, capped at ``max_s``.
        max_s: cap on the un-jittered backoff.
        jitter: relative spread; each backoff is multiplied by a uniform draw in ``[1-jitter, 1+jitter]``.
        retry_after_max_s: longest server-requested wait (``retry-after``) we accept; a longer one ends
            the retries at once (waiting would outlast any chat reply).
        min_attempt_s: inside a reply, a retry starts only when the reply's budget leaves its wait
            plus this much time for the attempt itself (core/llm/budget.py).
        storm_failures, storm_window_s: when this many attempts of this client (all calls together)
            failed transiently within the window, failed calls are not retried: the endpoint is in
            trouble, and retries from a burst of callers would only multiply the load (the breaker then
            opens after its few failed calls instead of after every caller's retries).
    """

    attempts: int = 3
    base_s: float = 0.5
    max_s: float = 8.0
    jitter: float = 0.25
    retry_after_max_s: float = 20.0
    min_attempt_s: float = 1.0
    storm_failures: int = 5
    storm_window_s: float = 10.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based) without a server hint."""
        raw = min(self.base_s * 2 ** max(0, attempt - 1), self.max_s)
        return max(0.0, raw * rng.uniform(1 - self.jitter, 1 + self.jitter))


class TransientFailure(Exception):
    """One attempt failed in a way that may pass (429, 5xx, timeout, connection error).

    Attributes:
        status: the HTTP status, if there was a response.
        retry_after: seconds the server asked us to wait, if it did.
        timeout: the endpoint did not answer in time (the call then ends in ``LLMTimeout``).
    """

    def __init__(
        self, message: str, *, status: int | None = None, retry_after: float | None = None, timeout: bool = False
    ):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.timeout = timeout


def parse_retry_after(headers: Mapping[str, str] | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds from ``retry-after-ms``, ``retry-after`` (seconds or HTTP date); None when absent or bad."""
    if not headers:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            continue
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    return _parse_http_date(headers.get("retry-after"), now)


def _parse_http_date(value: str | None, now: Callable[[], float]) -> float | None:
    if not value:
        return None
    try:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        return max(0.0, email.utils.mktime_tz(parsed) - now())
    except (TypeError, ValueError, OverflowError):
        return None


@dataclass
class CallStats:
    """Filled in while a call runs: how many attempts it took (for the per-call log line)."""

    attempts: int = 0


class Retrier:
    """Runs an attempt function under a :class:`RetryPolicy`.

    Args:
        policy: the policy.
        sleep: awaited for every wait (tests pass a recorder; nothing really sleeps).
        rng: source of jitter draws.
    """

    def __init__(
        self,
        policy: RetryPolicy,
        *,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.policy = policy
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._clock = clock
        self._failed_at: deque[float] = deque()  # recent transient attempt failures, all calls together

    async def run(self, attempt: Callable[[], Awaitable[T]], stats: CallStats | None = None) -> T:
        """Call ``attempt`` until it succeeds, fails permanently or the policy gives up.

        Raises:
            LLMUnavailable: transient failures exhausted the policy (chained to the last one).
        """
        stats = stats if stats is not None else CallStats()

        async def counted() -> T:
            stats.attempts += 1
            return await attempt()

        stops = (self._storm, stop_after_attempt(self.policy.attempts), self._hint_too_long, self._out_of_time)
        retrying = AsyncRetrying(
            sleep=self._sleep,
            stop=lambda state: any(stop(state) for stop in stops),
            wait=self._wait,
            retry=retry_if_exception_type(TransientFailure),
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            return await retrying(counted)
        except TransientFailure as exc:
            kind = LLMTimeout if exc.timeout else LLMUnavailable
            raise kind(f"LLM unavailable after {stats.attempts} attempt(s): {exc}") from exc

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hint = getattr(exc, "retry_after", None)
        if hint is not None:
            return min(hint, self.policy.retry_after_max_s)
        return self.policy.backoff(state.attempt_number, self._rng)

    def _hint_too_long(self, state: RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome else None
        hint = getattr(exc, "retry_after", None)
        return hint is not None and hint > self.policy.retry_after_max_s

    def _storm(self, state: RetryCallState) -> bool:
        """Record this failed attempt; True (no retry) while failures of every call pile up."""
        now = self._clock()
        self._failed_at.append(now)
        while self._failed_at and now - self._failed_at[0] > self.policy.storm_window_s:
            self._failed_at.popleft()
        if len(self._failed_at) < self.policy.storm_failures:
            return False
        log.info("llm_retry_skipped", reason="storm", failures=len(self._failed_at), attempt=state.attempt_number)
        return True

    def _out_of_time(self, state: RetryCallState) -> bool:
        """No retry the reply's budget cannot fit: the wait plus ``min_attempt_s`` of trying."""
        budget = current_budget()
        left = budget.wait_left() if budget is not None else None
        if left is None or left >= state.upcoming_sleep + self.policy.min_attempt_s:
            return False
        log.info("llm_retry_skipped", reason="deadline", attempt=state.attempt_number, left_s=round(left, 2))
        return True

    @staticmethod
    def _log_retry(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning(
            "llm_retry",
            attempt=state.attempt_number,
            status=getattr(exc, "status", None),
            error=type((exc and exc.__cause__) or exc).__name__,
            sleep_s=round(state.upcoming_sleep, 3),
        )
