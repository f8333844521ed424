"""Outbound request pacing per chat: a minimum interval shared by every request, and 429 pauses."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[Any]]


class RateLimited(Exception):
    """The platform refused a request for flood control; retry after ``retry_after`` seconds."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"rate limited, retry after {retry_after}s")
        self.retry_after = float(retry_after)


class TransientDelivery(Exception):
    """A send or edit failed in a way that may pass (the platform's 5xx, a network error): retry it."""


class OutboundBudget:
    """Outbound request pacing for one chat: a minimum interval between requests, and pauses.

    Every request to the chat (send, edit, typing) takes a slot with :meth:`acquire` or
    :meth:`try_acquire` and calls :meth:`finished` when its answer came back. After a 429,
    :meth:`pause_until` blocks all slots until the deadline. Final answers (:meth:`acquire`) go before
    streaming previews (``try_acquire(urgent=False)``) of other replies in the same chat.

    Args:
        min_interval: seconds between two requests to this chat.
        clock: monotonic clock in seconds.
        sleep: coroutine function used to wait.
    """

    def __init__(self, min_interval: float, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self.min_interval = min_interval
        self.clock, self.sleep = clock, sleep
        self._next = -math.inf
        self._before = -math.inf
        self._paused_until = -math.inf
        self._urgent_waiting = 0  # final deliveries waiting for a slot

    @property
    def paused(self) -> bool:
        """True while a flood-control pause is running."""
        return self.clock() < self._paused_until

    @property
    def paused_until(self) -> float:
        return self._paused_until

    def delay(self, *, urgent: bool = True) -> float:
        """Seconds until the next slot is free (0 when one is free now).

        A non-urgent caller (a streaming preview) also waits while an urgent one (a final answer)
        is waiting for a slot in this chat.
        """
        free_in = max(0.0, max(self._next, self._paused_until) - self.clock())
        if not urgent and self._urgent_waiting:
            return max(free_in, self.min_interval or 0.01)
        return free_in

    def try_acquire(self, *, urgent: bool = True) -> bool:
        """Take a slot if one is free now; never waits."""
        if self.delay(urgent=urgent) > 0:
            return False
        self._before, self._next = self._next, self.clock() + self.min_interval
        return True

    def refund(self) -> None:
        """Give back the slot just taken, for a request that was never sent."""
        self._next = self._before

    def finished(self) -> None:
        """Mark the end of a request: the next one starts at least ``min_interval`` from now.

        Counting from the end as well as the start keeps requests spaced at the server even when
        a request waited in a queue (e.g. a global rate limiter) before it went out.
        """
        self._next = max(self._next, self.clock() + self.min_interval)

    async def acquire(self) -> None:
        """Wait for a free slot and take it (urgent: previews in this chat give way meanwhile)."""
        self._urgent_waiting += 1
        try:
            while not self.try_acquire():
                await self.sleep(self.delay())
        finally:
            self._urgent_waiting -= 1

    def pause_until(self, deadline: float) -> None:
        """Block every request to this chat until ``deadline`` (clock time)."""
        self._paused_until = max(self._paused_until, deadline)

    def pause_for(self, seconds: float) -> None:
        """Block every request to this chat for ``seconds`` from now."""
        self.pause_until(self.clock() + seconds)


class BudgetRegistry:
    """One :class:`OutboundBudget` per chat key, created on first use, idle ones pruned.

    Args:
        clock: passed to every budget.
        sleep: passed to every budget.
        max_idle: how many idle budgets may be kept before pruning.
    """

    def __init__(self, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep, max_idle: int = 1000) -> None:
        self.clock, self.sleep, self.max_idle = clock, sleep, max_idle
        self._budgets: dict[str, OutboundBudget] = {}

    def get(self, chat_key: str, min_interval: float) -> OutboundBudget:
        """The budget of ``chat_key``; its interval is updated to ``min_interval``."""
        budget = self._budgets.get(chat_key)
        if budget is None:
            if len(self._budgets) >= self.max_idle:
                self._prune()
            budget = self._budgets[chat_key] = OutboundBudget(min_interval, clock=self.clock, sleep=self.sleep)
        budget.min_interval = min_interval
        return budget

    def _prune(self) -> None:
        for key in [k for k, b in self._budgets.items() if b.delay() == 0]:
            del self._budgets[key]
