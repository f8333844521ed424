"""Outbound request pacing per chat: a minimum interval shared by every request, and 429 pauses.

In one process an :class:`OutboundBudget` per chat; for N processes a :class:`SharedOutboundBudget`
also claims each slot on a :class:`ChatGate` they share (Redis: :mod:`adapters.common.budget_redis`).
"""

from __future__ import annotations

import asyncio
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

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

    async def claim(self, *, urgent: bool = True) -> float:
        """Take a slot if one is free now (answer 0); else the seconds to wait before asking again."""
        if self.try_acquire(urgent=urgent):
            return 0.0
        return max(self.delay(urgent=urgent), 0.001)

    async def acquire(self) -> None:
        """Wait for a free slot and take it (urgent: previews in this chat give way meanwhile)."""
        self._urgent_waiting += 1
        try:
            while (wait := await self.claim()) > 0:
                await self.sleep(wait)
        finally:
            self._urgent_waiting -= 1

    async def done(self, *, sent: bool = True, pause: float = 0.0) -> None:
        """End of the request that took the last slot.

        Args:
            sent: False for a request that never went out (its slot is given back).
            pause: seconds every request to this chat waits from now (a 429's ``retry_after``, a
                transient failure's backoff).
        """
        if not sent:
            self.refund()
            return
        if pause > 0:
            self.pause_for(pause)
        self.finished()

    def pause_until(self, deadline: float) -> None:
        """Block every request to this chat until ``deadline`` (clock time)."""
        self._paused_until = max(self._paused_until, deadline)

    def pause_for(self, seconds: float) -> None:
        """Block every request to this chat for ``seconds`` from now."""
        self.pause_until(self.clock() + seconds)


class ChatGate(Protocol):
    """Per-chat budgets shared by every process (see :mod:`adapters.common.budget_redis`).

    One request per chat is in flight across all processes; the next starts ``interval`` after the
    start and after the end of the last one, and after any pause. Urgent claimants go first.
    """

    async def claim(self, chat: str, token: str, *, urgent: bool, interval: float) -> float | None:
        """0: the slot is ``token``'s; > 0: seconds to wait before asking again; None: gate unreachable."""
        ...

    async def done(self, chat: str, token: str, *, sent: bool, interval: float, pause: float) -> None:
        """End of ``token``'s request (also after a claim the gate did not answer: its pause still counts)."""
        ...


class SharedOutboundBudget(OutboundBudget):
    """An :class:`OutboundBudget` whose slots are also claimed on a :class:`ChatGate` shared by every
    process: the local budget keeps the order within this process, the gate across processes. When
    the gate is unreachable the local budget alone paces the chat (fail open).

    Args:
        min_interval: seconds between two requests to this chat.
        gate: the shared gate; chat: this chat's key on it.
    """

    def __init__(
        self,
        min_interval: float,
        gate: ChatGate,
        chat: str,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        super().__init__(min_interval, clock=clock, sleep=sleep)
        self.gate, self.chat = gate, chat
        self._token = uuid.uuid4().hex  # this process's claims on this chat

    async def claim(self, *, urgent: bool = True) -> float:
        wait = await super().claim(urgent=urgent)
        if wait > 0:
            return wait
        shared = await self.gate.claim(self.chat, self._token, urgent=urgent, interval=self.min_interval)
        if shared is not None and shared > 0:
            self.refund()
            return shared
        return 0.0  # granted (None: the gate is unreachable and this process paces the chat alone)

    async def done(self, *, sent: bool = True, pause: float = 0.0) -> None:
        await super().done(sent=sent, pause=pause)
        await self.gate.done(self.chat, self._token, sent=sent, interval=self.min_interval, pause=pause)


class BudgetRegistry:
    """One :class:`OutboundBudget` per chat key, created on first use, idle ones pruned.

    Args:
        clock: passed to every budget.
        sleep: passed to every budget.
        max_idle: how many idle budgets may be kept before pruning.
        gate: budgets shared with other processes (e.g. :class:`~adapters.common.budget_redis.RedisChatGate`);
            None: this process alone.
    """

    def __init__(
        self,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        max_idle: int = 1000,
        gate: ChatGate | None = None,
    ) -> None:
        self.clock, self.sleep, self.max_idle, self.gate = clock, sleep, max_idle, gate
        self._budgets: dict[str, OutboundBudget] = {}

    def get(self, chat_key: str, min_interval: float) -> OutboundBudget:
        """The budget of ``chat_key``; its interval is updated to ``min_interval``."""
        budget = self._budgets.get(chat_key)
        if budget is None:
            if len(self._budgets) >= self.max_idle:
                self._prune()
            budget = self._budgets[chat_key] = self._new(chat_key, min_interval)
        budget.min_interval = min_interval
        return budget

    def _new(self, chat_key: str, min_interval: float) -> OutboundBudget:
        if self.gate is None:
            return OutboundBudget(min_interval, clock=self.clock, sleep=self.sleep)
        return SharedOutboundBudget(min_interval, self.gate, chat_key, clock=self.clock, sleep=self.sleep)

    def _prune(self) -> None:
        for key in [k for k, b in self._budgets.items() if b.delay() == 0]:
            del self._budgets[key]
