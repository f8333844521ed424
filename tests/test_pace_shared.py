"""Telegram's bot-wide pace shared by two processes' limiters through Redis (real server)."""

from __future__ import annotations

import asyncio
import socket
import time

from adapters.common.pace import RedisPace
from adapters.telegram.ratelimit import PriorityRateLimiter
from tests.helpers_db import redis_prefix  # noqa: F401

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


async def test_two_processes_together_stay_at_the_bot_wide_rate(redis_prefix):
    url, prefix = redis_prefix
    paces = [RedisPace(url, f"{prefix}pace:telegram", RATE) for _ in range(2)]
    a, b = (PriorityRateLimiter(RATE, shared=p) for p in paces)
    sent: list[float] = []
    try:
        await asyncio.gather(send_all(a, 15, sent), send_all(b, 15, sent))
    finally:
        for p in paces:
            await p.aclose()
    assert len(sent) == 30
    assert busiest_second(sent) <= RATE + 1  # each limiter alone would allow 10/s: together 20/s
    assert max(sent) - min(sent) >= (30 - 1) / RATE * 0.9


async def test_each_process_alone_when_redis_is_down():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pace = RedisPace(f"redis://127.0.0.1:{port}/0", "down:pace", RATE)
    limiter = PriorityRateLimiter(RATE, shared=pace)
    sent: list[float] = []
    try:
        await send_all(limiter, 5, sent)
    finally:
        await pace.aclose()
    assert len(sent) == 5 and busiest_second(sent) <= RATE + 1
