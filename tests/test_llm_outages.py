"""Outages against the real client and the fake endpoint: hangs, slow starts, stalls, 503 bursts.

Timeouts are fractions of a second so nothing waits long; the shapes are those of the defaults
(FUZI_LLM_FIRST_TOKEN_TIMEOUT_S, FUZI_ENGINE_DEGRADE_AFTER_S …), scaled down.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from core.agent import Agent
from core.llm.breaker import CircuitBreakerLLM
from core.llm.budget import ReplyBudget, reply_budget
from core.llm.bulkhead import BulkheadLLM
from core.llm.client import OpenAIChatClient
from core.llm.errors import CircuitOpen, LLMBusy, LLMUnavailable
from core.llm.retry import RetryPolicy
from core.llm.types import StreamDelta
from core.tools.toolset import Toolset
from tests.fakes.openai_server import Reply, fake_llm  # noqa: F401
from tests.helpers_engine import CorpusRetriever, collect, final_of, incoming, make_service, sqlite_storage
from tests.helpers_wait import eventually
from tests.test_service_ladder import Sleeps, search_classics_tool

USER = [{"role": "user", "content": "何为仁？"}]
SLACK_S = 0.8  # L2 retrieval, SQLite writes and a busy 2-core machine


def client_for(fake, **kw) -> OpenAIChatClient:
    opts = dict(
        timeout_s=5.0,
        first_token_timeout_s=0.5,
        stream_idle_timeout_s=0.3,
        retry=RetryPolicy(attempts=3),
        sleep=Sleeps(),
    )
    opts.update(kw)
    return OpenAIChatClient(base_url=fake.base_url, api_key="sk-test", model="m", **opts)


async def texts(llm, **kw) -> str:
    return "".join([e.text async for e in llm.stream(USER, **kw) if isinstance(e, StreamDelta)])


# ---------------------------------------------------------------- the three waits
async def test_slow_first_token_then_flowing_is_not_an_outage(fake_llm):
    fake_llm.push(Reply(text="学而时习之，不亦说乎", chunk=2, delay=0.35, chunk_delay=0.2))
    started = time.monotonic()
    assert await texts(client_for(fake_llm)) == "学而时习之，不亦说乎"  # 0.35 s start, 1 s of tokens
    assert time.monotonic() - started > 1.0 and len(fake_llm.requests) == 1


async def test_no_first_token_times_out_per_attempt_and_is_retried(fake_llm):
    fake_llm.hang().stream_text("后来者")
    assert await texts(client_for(fake_llm)) == "后来者"
    assert len(fake_llm.requests) == 2


async def test_stall_between_tokens_is_cut_by_the_idle_timeout(fake_llm):
    fake_llm.push(Reply(text="君子不器，此言", chunk=2, chunk_delay=5.0))
    got = []
    started = time.monotonic()
    with pytest.raises(LLMUnavailable, match="stalled"):
        async for event in client_for(fake_llm).stream(USER):
            got.append(event)
    assert got == [StreamDelta("君子")] and time.monotonic() - started < 1.5


# ---------------------------------------------------------------- the reply's budget
async def test_no_request_once_the_budget_is_spent(fake_llm):
    with reply_budget(ReplyBudget(until=time.monotonic() - 1)):
        with pytest.raises(LLMUnavailable, match="no time left"):
            await client_for(fake_llm).complete(USER)
    assert fake_llm.requests == []


async def test_first_token_wait_is_capped_by_the_budget_and_not_retried(fake_llm):
    for _ in range(3):
        fake_llm.hang()
    budget = ReplyBudget(until=time.monotonic() + 30, first_token_until=time.monotonic() + 0.3)
    started = time.monotonic()
    with reply_budget(budget), pytest.raises(LLMUnavailable):
        await texts(client_for(fake_llm, first_token_timeout_s=10))
    assert time.monotonic() - started < 0.9 and len(fake_llm.requests) == 1  # no retry fits


async def test_once_tokens_flowed_the_first_token_cap_no_longer_applies(fake_llm):
    fake_llm.stream_text("一").push(Reply(text="二三", chunk=1, delay=0.4))
    budget = ReplyBudget(until=time.monotonic() + 30, first_token_until=time.monotonic() + 1.0)
    llm = client_for(fake_llm, first_token_timeout_s=2)
    with reply_budget(budget):
        assert await texts(llm) == "一" and budget.got_token
        await asyncio.sleep(1.0)
        assert await texts(llm) == "二三"  # slow to start, but the reply is already flowing


# ---------------------------------------------------------------- the breaker sees hangs
async def test_a_call_cancelled_after_its_budget_ran_out_counts_as_failure(fake_llm):
    fake_llm.hang()
    breaker = CircuitBreakerLLM(client_for(fake_llm, first_token_timeout_s=30), failures=1, reset_s=30)
    budget = ReplyBudget(until=time.monotonic() + 0.2)

    async def caller():
        with reply_budget(budget):
            return await breaker.complete(USER)

    task = asyncio.create_task(caller())
    await asyncio.sleep(0.3)  # the budget ran out; whoever waited on it now cancels
    if not task.done():
        task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert breaker.state == "open"


async def test_calls_in_flight_are_shed_when_the_breaker_opens(fake_llm):
    for _ in range(2):
        fake_llm.error(503, delay=0.1)
    for _ in range(6):
        fake_llm.hang()
    breaker = CircuitBreakerLLM(
        client_for(fake_llm, first_token_timeout_s=30, retry=RetryPolicy(attempts=1)), failures=2, reset_s=30
    )
    started = time.monotonic()
    results = await asyncio.gather(*(breaker.complete(USER) for _ in range(8)), return_exceptions=True)
    assert time.monotonic() - started < 1.0  # the hung six did not wait out their 30 s
    assert sum(isinstance(r, CircuitOpen) for r in results) == 6
    assert breaker.state == "open" and breaker.consecutive_failures == 2 and len(fake_llm.requests) == 8


async def test_half_open_lets_one_probe_of_a_burst_through(fake_llm):
    clock = [1000.0]
    fake_llm.strict = True
    breaker = CircuitBreakerLLM(
        client_for(fake_llm, retry=RetryPolicy(attempts=1)), failures=1, reset_s=30, clock=lambda: clock[0]
    )
    with pytest.raises(LLMUnavailable):
        await breaker.complete(USER)
    clock[0] += 30
    fake_llm.hang()
    before = len(fake_llm.requests)
    tasks = [asyncio.create_task(breaker.complete(USER)) for _ in range(20)]
    async with asyncio.timeout(5):
        while len(fake_llm.requests) == before:  # the probe reached the endpoint
            await asyncio.sleep(0.02)

    def turned_away() -> int:
        return sum(t.done() and isinstance(t.exception(), CircuitOpen) for t in tasks)

    await eventually(lambda: turned_away() >= 19)
    await asyncio.sleep(0.1)  # and the probe is still the only one at the endpoint
    assert turned_away() == 19
    assert len(fake_llm.requests) - before == 1
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert breaker.state == "open"  # the cancelled probe: open again, not stuck half-open


# ---------------------------------------------------------------- the bulkhead
async def test_bulkhead_keeps_a_burst_off_a_hung_endpoint(fake_llm):
    for _ in range(20):
        fake_llm.hang()
    llm = BulkheadLLM(
        client_for(fake_llm, timeout_s=2.0, retry=RetryPolicy(attempts=1)), max_concurrent=4, max_wait_s=0.2
    )
    results = await asyncio.gather(*(llm.complete(USER) for _ in range(20)), return_exceptions=True)
    assert len(fake_llm.requests) == 4 and llm.peak == 4
    assert sum(isinstance(r, LLMBusy) for r in results) == 16
    assert all(isinstance(r, LLMUnavailable) for r in results)


async def test_bulkhead_waiters_meet_the_opened_breaker_and_fail_fast(fake_llm):
    for _ in range(20):
        fake_llm.hang()
    breaker = CircuitBreakerLLM(
        client_for(fake_llm, first_token_timeout_s=0.3, retry=RetryPolicy(attempts=1)), failures=3, reset_s=30
    )
    llm = BulkheadLLM(breaker, max_concurrent=4, max_wait_s=5)
    started = time.monotonic()
    results = await asyncio.gather(*(texts(llm) for _ in range(20)), return_exceptions=True)
    assert time.monotonic() - started < 1.5
    # 4 at once; a slot freed by the first or second failure may let one more in while still closed
    assert len(fake_llm.requests) <= 4 + 2 and sum(isinstance(r, CircuitOpen) for r in results) >= 14


# ---------------------------------------------------------------- 20 people, end to end
@pytest.fixture(scope="module")
def corpus():
    return CorpusRetriever()


def service_for(tmp_path, fake, corpus, *, degrade_after_s=1.0, max_concurrent=8):
    client = OpenAIChatClient(
        base_url=fake.base_url,
        api_key="sk-test",
        model="m",
        timeout_s=30,
        first_token_timeout_s=30,
        stream_idle_timeout_s=30,
        retry=RetryPolicy(attempts=3),
        sleep=Sleeps(),
    )
    breaker = CircuitBreakerLLM(client, failures=5, reset_s=60)
    llm = BulkheadLLM(breaker, max_concurrent=max_concurrent, max_wait_s=10)
    agent = Agent(llm, Toolset([search_classics_tool(corpus)]), max_rounds=3, reply_timeout_s=120)
    service = make_service(
        sqlite_storage(tmp_path),
        llm=llm,
        agent=agent,
        retriever=corpus,
        reply_deadline_s=120,
        degrade_after_s=degrade_after_s,
    )
    return service, breaker, llm


async def test_twenty_people_during_a_hang_get_l2_by_the_degrade_time(tmp_path, fake_llm, corpus):
    fake_llm.set_default(lambda body: Reply(delay=3600))  # every request hangs
    service, breaker, bulkhead = service_for(tmp_path, fake_llm, corpus)

    async def ask(n: int) -> tuple[int, float]:
        started = time.monotonic()
        events = await collect(service, incoming("管仲之器小哉是什么意思", user=f"u{n}", chat=f"c{n}"))
        return final_of(events).level, time.monotonic() - started

    results = await asyncio.gather(*(ask(n) for n in range(20)))
    assert [level for level, _ in results] == [2] * 20
    # 20 L2 searches and SQLite writes share the loop: generous slack, the point is 1 s, not 116 s
    assert max(wait for _, wait in results) < 1.0 + 4 * SLACK_S
    # at most 8 at once (the bulkhead); each slot freed by one of the first four failures may let one
    # more in before the fifth opens the breaker (the first 8 degrade at about the same moment, so
    # usually one or two do; on a loaded machine their moments spread: 11 seen once in a full run);
    # the rest met the open breaker without a request
    assert bulkhead.peak <= 8 and len(fake_llm.requests) <= 8 + 4
    assert breaker.state == "open" and breaker.transitions == [("closed", "open")]


async def test_a_slow_start_with_flowing_tokens_is_answered_by_the_model(tmp_path, fake_llm, corpus):
    # the first token after 0.6 s, the whole answer after 3 s: longer than the 2 s degrade time, which
    # counts silence, not the stream (2 s leaves the engine's own work before the call room on a busy
    # machine: with 1 s it met the first-token limit once under two test workers)
    fake_llm.push(Reply(text="夫子曰：仁者爱人。", chunk=1, delay=0.6, chunk_delay=0.3))
    service, breaker, _ = service_for(tmp_path, fake_llm, corpus, degrade_after_s=2.0)
    final = final_of(await collect(service, incoming("何为仁？")))
    assert final.level == 0 and final.text.startswith("夫子曰") and breaker.state == "closed"


async def test_a_stall_goes_to_l2_without_asking_the_hanging_endpoint_again(tmp_path, fake_llm, corpus):
    fake_llm.push(Reply(text="夫子曰：管仲之器小哉，此言", chunk=3, chunk_delay=3600))  # L0: a few tokens, then silence
    client = OpenAIChatClient(
        base_url=fake_llm.base_url,
        api_key="sk-test",
        model="m",
        first_token_timeout_s=5,
        stream_idle_timeout_s=0.5,
        retry=RetryPolicy(attempts=3),
        sleep=Sleeps(),
    )
    agent = Agent(client, Toolset([search_classics_tool(corpus)]), max_rounds=3, reply_timeout_s=120)
    service = make_service(
        sqlite_storage(tmp_path), llm=client, agent=agent, retriever=corpus, reply_deadline_s=120, degrade_after_s=15
    )
    started = time.monotonic()
    events = await collect(service, incoming("管仲之器小哉是什么意思"))
    assert final_of(events).level == 2 and time.monotonic() - started < 0.5 + SLACK_S
    assert len(fake_llm.requests) == 1  # L1 was not tried against the endpoint that just stalled
    assert [e.kind for e in events if e.kind in ("text_delta", "text_reset")][-1] == "text_reset"
