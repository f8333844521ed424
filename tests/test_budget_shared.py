"""Per-chat outbound budgets shared by processes through Redis (real server): each "process" is its own
BudgetRegistry with its own RedisChatGate (own connection pool), as N replicas have."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from structlog.testing import capture_logs

from adapters.common.budget import BudgetRegistry, OutboundBudget
from adapters.common.budget_redis import RedisChatGate
from adapters.common.render import truncate
from adapters.common.split import split_text
from adapters.common.stream import StreamingReply
from core.events import FinalReply, TextDelta
from tests.helpers_db import redis_client, redis_prefix  # noqa: F401

INTERVAL = 0.3


@pytest.fixture
def processes(redis_prefix, redis_client):
    url, prefix = redis_prefix
    return [
        BudgetRegistry(gate=RedisChatGate(redis_client(url), f"{prefix}budget:test:", lease_s=2.0)) for _ in range(3)
    ]


def budgets(processes: list[BudgetRegistry], chat: str = "group-1") -> list[OutboundBudget]:
    return [p.get(chat, INTERVAL) for p in processes]


async def test_one_request_per_chat_in_flight_across_processes(processes):
    a, b, _ = budgets(processes)
    assert await a.claim() == 0
    assert 0 < await b.claim() <= INTERVAL
    await asyncio.sleep(0.4)  # a's request waited long (a queue) before it went out
    assert 0 < await b.claim() <= 0.1  # still in flight (the interval since its start passed): ask again soon
    await a.done()
    wait = await b.claim()
    assert INTERVAL * 0.8 < wait <= INTERVAL  # the next one starts an interval after the end


async def test_a_slot_never_used_is_given_back(processes):
    a, b, _ = budgets(processes)
    assert await a.claim() == 0
    await a.done(sent=False)  # withdrawn before it was sent
    assert await b.claim() == 0


async def test_a_429_in_one_process_pauses_the_chat_in_all(processes):
    a, b, _ = budgets(processes)
    assert await a.claim() == 0
    await a.done(pause=1.0)
    assert await b.claim() > 0.8


async def test_a_final_waiting_in_one_process_goes_before_previews_of_another(processes):
    a, b, c = budgets(processes)
    assert await a.claim() == 0  # a request in flight
    final = asyncio.create_task(b.acquire())  # b's final answer waits for the chat
    await asyncio.sleep(0.05)
    await a.done()
    previews = 0
    while not final.done():
        previews += await c.claim(urgent=False) == 0
        await asyncio.sleep(0.02)
    assert previews == 0  # c's preview waited while b's final did
    await b.done()
    await asyncio.sleep(INTERVAL + 0.05)
    assert await c.claim(urgent=False) == 0


async def test_a_claim_whose_process_died_lapses(redis_prefix, redis_client):
    url, prefix = redis_prefix
    gates = [RedisChatGate(redis_client(url), f"{prefix}budget:test:", lease_s=0.3) for _ in range(2)]
    a, b = (BudgetRegistry(gate=g).get("chat", 0.05) for g in gates)
    assert await a.claim() == 0  # and its process is killed: done() never comes
    deadline = time.monotonic() + 2
    while await b.claim() > 0:
        assert time.monotonic() < deadline, "the dead process's claim never lapsed"
        await asyncio.sleep(0.05)


async def test_each_process_paces_alone_when_redis_is_down(redis_client):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gate = RedisChatGate(redis_client(f"redis://127.0.0.1:{port}/0"), "down:")
    budget = BudgetRegistry(gate=gate).get("chat", INTERVAL)
    with capture_logs() as logs:
        assert await budget.claim() == 0
        await budget.done()
        assert await budget.claim() > 0  # the local budget still spaces the chat
    assert [e["event"] for e in logs].count("budget_redis_down") == 1


class TimedSink:
    """Records (start, end) of every request; each takes `latency` seconds."""

    def __init__(self, log: list[tuple[float, float]], latency: float = 0.05) -> None:
        self.log, self.latency = log, latency

    async def _request(self) -> int:
        start = time.monotonic()
        await asyncio.sleep(self.latency)
        self.log.append((start, time.monotonic()))
        return len(self.log)

    async def typing(self) -> None:
        await self._request()

    async def send(self, text, *, final=False, extra=None):
        return await self._request()

    async def edit(self, handle, text, *, final=False, extra=None):
        await self._request()
        return handle

    def fit_preview(self, text: str) -> str:
        return truncate(text, 2000)

    def split_final(self, text: str) -> list[str]:
        return split_text(text, 2000)


async def stream(budget: OutboundBudget, sink: TimedSink, words: int) -> None:
    async def events():
        for i in range(words):
            await asyncio.sleep(0.03)
            yield TextDelta(f"字{i}")
        yield FinalReply("".join(f"字{i}" for i in range(words)))

    stats = await StreamingReply(sink, budget, first_typing_after=0.05).run(events())
    assert stats.delivered


async def test_two_processes_streaming_into_one_group_keep_its_spacing(processes):
    requests: list[tuple[float, float]] = []
    a, b, _ = budgets(processes)
    await asyncio.gather(stream(a, TimedSink(requests), 40), stream(b, TimedSink(requests), 40))
    requests.sort()
    assert len(requests) >= 4
    for (_start, end), (next_start, _) in zip(requests, requests[1:], strict=False):
        assert next_start >= end + INTERVAL * 0.95  # one at a time, an interval after the end of the last
