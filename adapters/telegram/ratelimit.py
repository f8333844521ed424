"""A global Bot API rate limiter that serves what the user waits for first.

PTB's :class:`~telegram.ext.AIORateLimiter` is a FIFO: under load a "typing" action or an
intermediate edit queued a few seconds ago goes out before another chat's final answer. Fuzi's
requests are not equal, so this limiter releases chat requests at a steady ``max_per_s`` in priority
order. The pace keeps to its schedule when the event loop wakes it late (a busy process): the next
release may then come sooner, but never closer than half an interval to the last one, and never more
than ``int(max_per_s)`` are sent in any second — what the schedule itself puts there, so the window
binds only while a late process catches up. A loaded process still gets ``max_per_s`` out, and the
2 a second left under Telegram's 30 absorb requests sent apart arriving closer together.
Priorities:

1. ``final``  — parts of a final answer, plain re-sends, apologies (never dropped);
2. ``first``  — the first visible message of a reply;
3. ``edit``   — intermediate streaming edits;
4. ``scheduled`` — scheduled posts (daily passage, digest: core/schedule), behind every live reply;
5. ``typing`` — chat actions, only when nothing else waits: under pressure (any request queued) a
   typing action is dropped at once, and one that waited longer than ``typing_max_wait`` is dropped
   (it would show "typing" after the text it announces); it raises Withdrawn, as withdrawn requests
   do, and the chat's slot is given back.

A request carries a :class:`Ticket` (PTB's ``rate_limit_args``). When a reply's final text is ready,
its sink withdraws the preview request it still has queued here (:meth:`withdraw`): that request was
never sent, so the final goes out without waiting behind a stale edit.

Requests without a ``chat_id`` (getUpdates, answerCallbackQuery, setMyCommands …) pass unthrottled,
as in AIORateLimiter. ``RetryAfter`` is not retried here: it reaches the streaming code, which pauses
only that chat. Per-chat and per-group pacing is the job of the chat's ``OutboundBudget``.

With ``shared`` (N processes, one bot), the best queued request is released only when the bot-wide
schedule in Redis (:class:`~adapters.common.pace.RedisPace`) grants a slot now; until then the
dispatcher waits and asks again for whatever is best by then (a final that arrived meanwhile goes
first). All processes together stay at ``max_per_s``, and the priority order holds across them: the
schedule refuses a priority while a more urgent request waits in any process.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import structlog
from telegram.ext import BaseRateLimiter

from adapters.common.pace import SharedPace
from adapters.common.stream import Withdrawn

log = structlog.get_logger(__name__)

PRIORITY = {"final": 0, "first": 1, "edit": 2, "scheduled": 3, "typing": 4}


@dataclass(frozen=True)
class Ticket:
    """``rate_limit_args`` for one request: its priority and who may withdraw it while queued."""

    priority: str
    owner: object | None = None


def default_priority(endpoint: str, data: dict) -> str:
    """Priority of a request made without ``rate_limit_args``."""
    if endpoint == "sendChatAction":
        return "typing"
    if endpoint == "editMessageText" and "parse_mode" not in data:
        return "edit"
    return "final"


class PriorityRateLimiter(BaseRateLimiter[Ticket]):
    """Steady global pacing with priorities; see the module docstring.

    Args:
        max_per_s: chat requests released per second: one per ``1/max_per_s`` on schedule, at least
            half that apart, at most ``int(max_per_s)`` sent in any second.
        typing_max_wait: seconds after which a queued typing action is dropped.
        clock: monotonic clock; sleep: coroutine function the dispatcher waits with.
        shared: the bot-wide schedule shared with other processes (None: this process alone).
    """

    def __init__(
        self,
        max_per_s: float = 28.0,
        *,
        typing_max_wait: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        shared: SharedPace | None = None,
    ) -> None:
        self.interval = 1.0 / max_per_s
        self.shared = shared
        self.typing_max_wait, self.clock, self.sleep = typing_max_wait, clock, sleep
        self._next = 0.0  # the next release's slot on the schedule
        self._recent: deque[list[float]] = deque()  # [time] of each release in the window: sent, else released
        self._per_window = max(1, int(max_per_s))
        self._heap: list[tuple[int, int, float, asyncio.Future, object | None]] = []
        self._seq = itertools.count()
        self._dispatcher: asyncio.Task | None = None
        self.dropped_typing = 0

    async def initialize(self) -> None:
        """Nothing to set up; the dispatcher starts on first use."""

    async def shutdown(self) -> None:
        if self._dispatcher:
            self._dispatcher.cancel()
        for entry in self._heap:
            fut = entry[3]
            if not fut.done():
                fut.cancel()
        self._heap.clear()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict | list[dict]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: Ticket | None,
    ) -> bool | dict | list[dict]:
        if data.get("chat_id") is None:
            return await callback(*args, **kwargs)
        ticket = rate_limit_args or Ticket(default_priority(endpoint, data))
        admitted = await self._admit(PRIORITY.get(ticket.priority, PRIORITY["final"]), ticket.owner)
        if admitted is False:
            raise Withdrawn()  # withdrawn by its owner, or a typing action that waited too long
        if isinstance(admitted, list):  # paced here: in the window from when it is sent (a late task
            admitted[0] = self.clock()  # sends closer to the next ones than it was released)
        return await callback(*args, **kwargs)

    @property
    def queued(self) -> int:
        """Requests waiting for a slot now (withdrawn ones not counted)."""
        return sum(1 for entry in self._heap if not entry[3].done())

    def withdraw(self, owner: object) -> int:
        """Withdraw ``owner``'s requests that are still queued (they raise Withdrawn); returns how many."""
        count = 0
        for _, _, _, fut, entry_owner in self._heap:
            if entry_owner is owner and not fut.done():
                fut.set_result(False)
                count += 1
        return count

    async def _admit(self, priority: int, owner: object | None) -> bool | list[float]:
        """False: dropped or withdrawn; True: paced by the shared schedule; else its window entry."""
        now = self.clock()
        if priority == PRIORITY["typing"] and self._best() is not None:  # under pressure: no typing
            self.dropped_typing += 1
            return False
        if self.shared is None and not self._heap and now >= self._free_at(now):
            return self._released(now, self.interval)  # after a quiet spell the schedule starts again now
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (priority, next(self._seq), now, fut, owner))
        if self._dispatcher is None or self._dispatcher.done():
            self._dispatcher = asyncio.create_task(self._dispatch())
        return await fut

    async def _dispatch(self) -> None:
        while self._heap:
            wait = self._free_at(self.clock()) - self.clock()
            if wait > 0:
                await self.sleep(wait)
            best = self._best()
            if best is None:
                return
            due = None if self.shared is None else await self.shared.acquire(best, self._second())
            if due is not None and due > 0:  # not due yet, or a more urgent request waits elsewhere
                await self.sleep(due)
                continue
            entry: bool | list[float] = True
            if due is None:  # this process paces itself (alone, or the shared schedule is unreachable)
                now = self.clock()
                entry = self._released(now, max(self.interval / 2, self._next + self.interval - now))
            self._release(entry)

    def _free_at(self, now: float) -> float:
        """When the next release may go: its slot, and a free place in the window."""
        while self._recent and now - self._recent[0][0] >= 1.0:
            self._recent.popleft()
        if len(self._recent) >= self._per_window:
            return max(self._next, self._recent[0][0] + 1.0)
        return self._next

    def _released(self, now: float, gap: float) -> list[float]:
        entry = [now]
        self._recent.append(entry)
        self._next = now + gap
        return entry

    def _best(self) -> int | None:
        """The priority of the best live request (dropping withdrawn ones and stale typing), or None."""
        while self._heap:
            priority, _, queued_at, fut, _ = self._heap[0]
            if fut.done():
                heapq.heappop(self._heap)
            elif priority == PRIORITY["typing"] and self.clock() - queued_at > self.typing_max_wait:
                heapq.heappop(self._heap)
                self.dropped_typing += 1
                fut.set_result(False)
            else:
                return priority
        return None

    def _second(self) -> int | None:
        """The priority of the request queued after the best one, if any."""
        return min(self._heap[1:3])[0] if len(self._heap) > 1 else None  # a heap's 2nd is a child of its root

    def _release(self, entry: bool | list[float]) -> None:
        """Release the best live request (it may have changed while the shared slot was asked for)."""
        while self._heap:
            fut = heapq.heappop(self._heap)[3]
            if not fut.done():
                fut.set_result(entry)
                return
