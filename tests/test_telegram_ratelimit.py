"""PriorityRateLimiter: steady spacing, priority order, dropped typing, withdrawn previews."""

from __future__ import annotations

import asyncio
import time

import pytest

from adapters.common.stream import Withdrawn
from adapters.telegram.ratelimit import PriorityRateLimiter, Ticket


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, float]] = []

    def call(self, name: str):
        async def callback():
            self.sent.append((name, time.monotonic()))
            return {"name": name}

        return callback


async def request(limiter, rec, name, priority=None, owner=None, chat_id=1, endpoint="sendMessage"):
    ticket = Ticket(priority, owner) if priority else None
    return await limiter.process_request(rec.call(name), (), {}, endpoint, {"chat_id": chat_id}, ticket)


async def test_releases_in_priority_order_spaced():
    limiter, rec = PriorityRateLimiter(50, typing_max_wait=10), Recorder()
    first = asyncio.create_task(request(limiter, rec, "busy", "edit"))
    await asyncio.sleep(0)
    tasks = [
        asyncio.create_task(request(limiter, rec, n, p))
        for n, p in [("t", "typing"), ("e", "edit"), ("f1", "final"), ("s", "first"), ("f2", "final")]
    ]
    await asyncio.gather(first, *tasks)
    assert [n for n, _ in rec.sent] == ["busy", "f1", "f2", "s", "e", "t"]
    gaps = [b - a for (_, a), (_, b) in zip(rec.sent, rec.sent[1:])]
    assert min(gaps) >= 0.01 * 0.9  # on schedule (every 0.02 s), and never closer than half of it


async def test_typing_that_waited_too_long_is_dropped():
    limiter, rec = PriorityRateLimiter(10, typing_max_wait=0.05), Recorder()
    tasks = [asyncio.create_task(request(limiter, rec, f"m{i}", "final")) for i in range(3)]
    await asyncio.sleep(0)
    typing = asyncio.create_task(request(limiter, rec, "typing", "typing", endpoint="sendChatAction"))
    await asyncio.gather(*tasks)
    with pytest.raises(Withdrawn):
        await typing
    assert "typing" not in [n for n, _ in rec.sent] and limiter.dropped_typing == 1


async def test_withdraw_drops_only_the_owners_queued_requests():
    limiter, rec = PriorityRateLimiter(20), Recorder()
    owner, other = object(), object()
    busy = asyncio.create_task(request(limiter, rec, "busy", "final"))
    await asyncio.sleep(0)
    mine = asyncio.create_task(request(limiter, rec, "mine", "edit", owner))
    theirs = asyncio.create_task(request(limiter, rec, "theirs", "edit", other))
    await asyncio.sleep(0)
    assert limiter.withdraw(owner) == 1
    with pytest.raises(Withdrawn):
        await mine
    await asyncio.gather(busy, theirs)
    assert [n for n, _ in rec.sent] == ["busy", "theirs"]


async def test_requests_without_chat_are_not_throttled():
    limiter, rec = PriorityRateLimiter(1), Recorder()
    await request(limiter, rec, "a", "final")
    start = time.monotonic()
    await limiter.process_request(rec.call("updates"), (), {}, "answerCallbackQuery", {}, None)
    assert time.monotonic() - start < 0.5


async def test_typing_is_dropped_at_once_under_pressure():
    limiter, rec = PriorityRateLimiter(5, typing_max_wait=10), Recorder()
    busy = [asyncio.create_task(request(limiter, rec, f"e{i}", "edit")) for i in range(3)]
    await asyncio.sleep(0)
    assert limiter.queued == 2  # the first went at once, two wait
    started = time.monotonic()
    with pytest.raises(Withdrawn):  # something waits: no "typing", and no waiting for it either
        await request(limiter, rec, "typing", "typing", endpoint="sendChatAction")
    assert time.monotonic() - started < 0.05 and limiter.dropped_typing == 1
    await asyncio.gather(*busy)
    await request(limiter, rec, "typing2", "typing", endpoint="sendChatAction")  # quiet again: it goes
    assert [n for n, _ in rec.sent] == ["e0", "e1", "e2", "typing2"]


def busiest_second(times: list[float]) -> int:
    return max(sum(1 for t in times if s <= t < s + 1.0) for s in times)


async def test_a_late_event_loop_keeps_the_rate_and_the_one_second_window():
    limiter, rec = PriorityRateLimiter(20), Recorder()
    stop = False

    async def busy_process():  # the loop wakes every callback ~5 ms late or more, like a loaded bot
        while not stop:
            time.sleep(0.005)
            await asyncio.sleep(0)

    hog = asyncio.create_task(busy_process())
    start = time.monotonic()
    await asyncio.gather(*(request(limiter, rec, f"m{i}", "first") for i in range(41)))
    elapsed, stop = time.monotonic() - start, True
    await hog
    times = [t for _, t in rec.sent]
    assert elapsed < 2.0 + 0.3  # 40 intervals of 0.05 s (2.47 s when each was counted from a late wake-up)
    assert busiest_second(times) <= 20 and min(b - a for a, b in zip(times, times[1:])) >= 0.025 * 0.9
