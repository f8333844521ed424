"""Telegram's bot-wide pace shared by two processes' limiters through Redis (real server)."""

from __future__ import annotations

import asyncio
import socket
import time

from adapters.common.pace import RedisPace
from adapters.telegram.ratelimit import PriorityRateLimiter, Ticket
from tests.helpers_db import redis_client, redis_prefix  # noqa: F401
from tests.helpers_process import free_port

RATE = 10.0


async def send_all(limiter: PriorityRateLimiter, n: int, sent: list[float]) -> None:
    async def callback() -> bool:
        sent.append(time.monotonic())
        return True

    await asyncio.gather(
        *(limiter.process_request(callback, (), {}, "sendMessage", {"chat_id": i}, None) for i in range(n))
    )


def busiest_second(times: list[float]) -> int:
    times = sorted(times)
    return max(sum(1 for t in times if start <= t < start + 1.0) for start in times)


async def test_two_processes_together_stay_at_the_bot_wide_rate(redis_prefix, redis_client):
    url, prefix = redis_prefix
    a, b = (
        PriorityRateLimiter(RATE, shared=RedisPace(redis_client(url), f"{prefix}pace:telegram", RATE)) for _ in "ab"
    )
    sent: list[float] = []
    await asyncio.gather(send_all(a, 15, sent), send_all(b, 15, sent))
    assert len(sent) == 30
    assert busiest_second(sent) <= RATE + 1  # each limiter alone would allow 10/s: together 20/s
    assert max(sent) - min(sent) >= (30 - 1) / RATE * 0.9


async def test_each_process_alone_when_redis_is_down(redis_client):
    port = free_port()
    pace = RedisPace(redis_client(f"redis://127.0.0.1:{port}/0"), "down:pace", RATE)
    limiter = PriorityRateLimiter(RATE, shared=pace)
    sent: list[float] = []
    await send_all(limiter, 5, sent)
    assert len(sent) == 5 and busiest_second(sent) <= RATE + 1


async def test_a_slot_is_granted_only_when_due_never_booked_ahead(redis_prefix, redis_client):
    url, prefix = redis_prefix
    a, b = (RedisPace(redis_client(url), f"{prefix}pace:telegram", RATE) for _ in range(2))
    assert await a.acquire() == 0
    waits = [await b.acquire() for _ in range(3)]  # asking again does not book further slots
    assert all(0 < w <= 1 / RATE for w in waits)


async def test_finals_of_one_process_go_before_edits_queued_in_another(redis_prefix, redis_client):
    url, prefix = redis_prefix
    a, b = (
        PriorityRateLimiter(RATE, shared=RedisPace(redis_client(url), f"{prefix}pace:telegram", RATE)) for _ in "ab"
    )
    released: list[tuple[float, str]] = []

    def request(limiter: PriorityRateLimiter, kind: str, chat: int):
        async def callback() -> bool:
            released.append((time.monotonic(), kind))
            return True

        return limiter.process_request(callback, (), {}, "editMessageText", {"chat_id": chat}, Ticket(kind))

    edits = asyncio.gather(*(request(a, "edit", i) for i in range(12)))
    await asyncio.sleep(0.25)  # a few edits went out; the rest wait in process a
    finals_at = time.monotonic()
    await asyncio.gather(*(request(b, "final", 100 + i) for i in range(3)))
    await edits
    after = [kind for t, kind in sorted(released) if t >= finals_at]
    assert after[:4].count("final") == 3  # at most one edit (granted already) before the 3 finals
    assert busiest_second([t for t, _ in released]) <= RATE + 1


async def test_a_grant_a_little_late_keeps_the_schedule(redis_prefix, redis_client):
    url, prefix = redis_prefix
    pace = RedisPace(redis_client(url), f"{prefix}pace:telegram", RATE)  # a slot every 0.1 s
    assert await pace.acquire() == 0
    await asyncio.sleep(1 / RATE + 0.015)  # asked 15 ms after its slot was due (a late wake-up, a round trip)
    assert await pace.acquire() == 0
    # the next slot is one interval after the late one's slot (moved on to one after the grant: ~0.099 s)
    assert 0 < await pace.acquire() <= 1 / RATE - 0.01


async def test_a_grant_long_after_its_slot_leaves_three_quarters_of_an_interval(redis_prefix, redis_client):
    url, prefix = redis_prefix
    pace = RedisPace(redis_client(url), f"{prefix}pace:telegram", RATE)
    assert await pace.acquire() == 0
    await asyncio.sleep(0.5)  # far behind the schedule: no burst to catch up
    assert await pace.acquire() == 0
    assert 0.04 < await pace.acquire() <= 0.75 / RATE + 0.001
