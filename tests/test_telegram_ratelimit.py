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


async def test_a_late_event_loop_never_exceeds_the_rate_or_the_one_second_window():
    """Real time, a loaded loop: what must hold however loaded the machine is (that lateness costs no
    rate is measured on a virtual clock below, where the machine's load cannot change it)."""
    limiter, rec = PriorityRateLimiter(20), Recorder()
    stop = False

    async def busy_process():  # the loop wakes every callback ~5 ms late or more, like a loaded bot
        while not stop:
            time.sleep(0.005)
            await asyncio.sleep(0)

    hog = asyncio.create_task(busy_process())
    await asyncio.gather(*(request(limiter, rec, f"m{i}", "first") for i in range(41)))
    stop = True
    await hog
    times = [t for _, t in rec.sent]
    assert len(times) == 41
    assert busiest_second(times) <= 20 and min(b - a for a, b in zip(times, times[1:])) >= 0.025 * 0.9


class VirtualTime:
    """A clock that moves only when the limiter sleeps; ``late(n)`` is how late its n-th wake-up comes."""

    def __init__(self, late=lambda n: 0.0) -> None:
        self.now, self.late, self.wakes = 0.0, late, 0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)  # the request released before this sleep is sent at the current time
        self.now += max(seconds, 0.0) + self.late(self.wakes)
        self.wakes += 1
        await asyncio.sleep(0)


async def released_at(limiter: PriorityRateLimiter, time_: VirtualTime, n: int) -> list[float]:
    sent: list[float] = []

    async def callback():
        sent.append(time_.now)
        return True

    await asyncio.gather(
        *(limiter.process_request(callback, (), {}, "sendMessage", {"chat_id": i}, Ticket("first")) for i in range(n))
    )
    return sent


def most_within(times: list[float], width: float) -> int:
    return max(sum(1 for t in times if s <= t < s + width - 1e-9) for s in times)


async def test_a_burst_goes_out_at_the_full_rate_the_window_never_binds_on_schedule():
    time_ = VirtualTime()
    limiter = PriorityRateLimiter(28, clock=time_.clock, sleep=time_.sleep)
    sent = await released_at(limiter, time_, 100)
    gaps = [b - a for a, b in zip(sent, sent[1:])]
    # 100 first messages in 99/28 s (3.54 s); a window of 28 per 1.06 s stretched that to 3.73 s
    assert max(gaps) == pytest.approx(1 / 28) and sent[-1] == pytest.approx(99 / 28)
    assert most_within(sent, 1.0) == 28


async def test_late_wake_ups_keep_the_rate_and_the_window_holds_when_catching_up():
    stalls = {10: 0.3, 40: 0.05, 41: 0.05}  # the process stalls now and then, and wakes 5 ms late otherwise
    time_ = VirtualTime(late=lambda n: stalls.get(n, 0.005))
    limiter = PriorityRateLimiter(28, clock=time_.clock, sleep=time_.sleep)
    sent = await released_at(limiter, time_, 100)
    assert min(b - a for a, b in zip(sent, sent[1:])) >= 1 / 56 - 1e-9  # never closer than half an interval
    assert most_within(sent, 1.0) <= 28  # a second holds what the schedule puts there, never more
    assert sent[-1] < 99 / 28 + 0.3 + 0.1 + 0.05  # 5 ms late every time costs nothing; a stall only itself
