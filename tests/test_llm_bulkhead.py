"""The adaptive bulkhead: a healthy endpoint is not rationed, a failing one stays at the floor.

Real openai SDK against the loopback fake endpoint (tests/fakes/openai_server.py)."""

from __future__ import annotations

import asyncio

from core.llm.breaker import CircuitBreakerLLM
from core.llm.bulkhead import BulkheadLLM
from core.llm.errors import LLMBusy, LLMUnavailable
from core.llm.retry import RetryPolicy
from tests.fakes.openai_server import Reply, fake_llm  # noqa: F401
from tests.helpers_wait import eventually
from tests.test_llm_outages import USER, client_for, texts


async def test_a_burst_on_a_healthy_endpoint_is_all_answered_and_the_limit_grows(fake_llm):
    """60 calls at once, floor 4, each answer ~0.6 s: a fixed limit of 4 with a 1 s wait would shed
    most of them; the adaptive limit grows with every first token and all 60 are answered."""
    fake_llm.set_default(lambda body: Reply(text="学而时习之", chunk=2, delay=0.2, chunk_delay=0.1))
    llm = BulkheadLLM(
        client_for(fake_llm, first_token_timeout_s=10, stream_idle_timeout_s=10, timeout_s=30),
        max_concurrent=4,
        max_wait_s=8,
        max_healthy=64,
    )
    results = await asyncio.gather(*(texts(llm) for _ in range(60)), return_exceptions=True)
    assert results == ["学而时习之"] * 60 and llm.rejected == 0
    assert llm.peak > 4 and 4 < llm.limit <= 64
    assert llm.in_flight == 0 and llm.queued == 0


async def test_a_fixed_limit_still_sheds_what_it_cannot_serve_in_time(fake_llm):
    fake_llm.set_default(lambda body: Reply(text="仁者爱人", chunk=2, delay=0.3, chunk_delay=0.2))
    llm = BulkheadLLM(
        client_for(fake_llm, first_token_timeout_s=10, stream_idle_timeout_s=10, timeout_s=30),
        max_concurrent=2,
        max_wait_s=0.2,
    )
    results = await asyncio.gather(*(texts(llm) for _ in range(10)), return_exceptions=True)
    assert sum(isinstance(r, LLMBusy) for r in results) >= 6 and llm.limit == 2 and llm.peak == 2


async def test_a_hung_endpoint_keeps_the_floor_and_failures_halve_a_grown_limit(fake_llm):
    llm = BulkheadLLM(
        client_for(fake_llm, first_token_timeout_s=0.3, retry=RetryPolicy(attempts=1)),
        max_concurrent=2,
        max_wait_s=0.2,
        max_healthy=64,
    )
    llm.limit = 32  # grown by earlier successes
    for _ in range(3):
        fake_llm.hang()
    results = await asyncio.gather(*(texts(llm) for _ in range(3)), return_exceptions=True)
    assert all(isinstance(r, LLMUnavailable) for r in results)
    assert llm.limit == 4  # 32 → 16 → 8 → 4, never below the floor of 2
    for _ in range(12):
        fake_llm.hang()
    results = await asyncio.gather(*(texts(llm) for _ in range(12)), return_exceptions=True)
    assert all(isinstance(r, LLMUnavailable) for r in results) and llm.limit == 2
    assert llm.in_flight == 0 and llm.queued == 0


async def test_waiters_behind_an_opened_breaker_fail_fast_with_the_adaptive_limit(fake_llm):
    for _ in range(20):
        fake_llm.hang()
    breaker = CircuitBreakerLLM(
        client_for(fake_llm, first_token_timeout_s=0.3, retry=RetryPolicy(attempts=1)), failures=3, reset_s=30
    )
    llm = BulkheadLLM(breaker, max_concurrent=4, max_wait_s=5, max_healthy=256)
    results = await asyncio.gather(*(texts(llm) for _ in range(20)), return_exceptions=True)
    assert all(isinstance(r, LLMUnavailable) for r in results)
    assert len(fake_llm.requests) <= 6 and llm.limit == 4


async def test_a_cancelled_waiter_gives_its_slot_back(fake_llm):
    fake_llm.set_default(lambda body: Reply(text="好", delay=0.5))
    llm = BulkheadLLM(client_for(fake_llm, first_token_timeout_s=10, timeout_s=30), max_concurrent=1, max_wait_s=5)
    first = asyncio.create_task(texts(llm))
    await eventually(lambda: llm.in_flight)
    second = asyncio.create_task(texts(llm))
    await eventually(lambda: llm.queued)
    assert llm.queued == 1 and not first.done()
    second.cancel()
    assert await first == "好"
    await asyncio.gather(second, return_exceptions=True)
    assert llm.in_flight == 0 and llm.queued == 0
    assert await texts(llm) == "好"
