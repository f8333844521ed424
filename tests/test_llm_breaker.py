"""CircuitBreakerLLM around the real client and the fake server, with a fake clock."""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from core.llm.breaker import CircuitBreakerLLM
from core.llm.client import OpenAIChatClient
from core.llm.errors import CircuitOpen, LLMConfigError, LLMUnavailable
from core.llm.retry import RetryPolicy
from core.llm.types import Completion, StreamDelta, StreamDone
from tests.fakes.clock import FakeClock
from tests.fakes.openai_server import fake_llm  # noqa: F401

USER = [{"role": "user", "content": "子曰何为君子？"}]


async def no_sleep(_seconds: float) -> None:
    return None


def make_breaker(fake, clock: FakeClock, attempts: int = 2) -> CircuitBreakerLLM:
    client = OpenAIChatClient(
        base_url=fake.base_url,
        api_key="sk-x",
        model="m",
        timeout_s=5,
        retry=RetryPolicy(attempts=attempts, storm_failures=1000),
        sleep=no_sleep,  # the storm rule: test_llm_client
    )
    return CircuitBreakerLLM(client, failures=5, reset_s=30, clock=clock)


async def fail_n(breaker: CircuitBreakerLLM, n: int) -> None:
    for _ in range(n):
        with pytest.raises(LLMUnavailable) as info:
            await breaker.complete(USER)
        assert not isinstance(info.value, CircuitOpen)


async def open_breaker(fake, clock: FakeClock) -> CircuitBreakerLLM:
    fake.strict = True  # unscripted requests answer 500
    breaker = make_breaker(fake, clock)
    await fail_n(breaker, 5)
    assert breaker.state == "open"
    return breaker


async def test_five_failed_calls_open_it_and_open_rejects_without_requests(fake_llm):
    clock = FakeClock()
    fake_llm.strict = True
    breaker = make_breaker(fake_llm, clock, attempts=2)
    await fail_n(breaker, 4)
    assert breaker.state == "closed" and breaker.consecutive_failures == 4
    with capture_logs() as logs:
        await fail_n(breaker, 1)
    assert breaker.state == "open"
    assert len(fake_llm.requests) == 10  # a call = all its attempts: 5 calls x 2 attempts
    assert {"event": "circuit_state", "from": "closed", "to": "open"}.items() <= logs[-1].items()
    clock.now += 29.9
    for _ in range(3):
        with pytest.raises(CircuitOpen):
            await breaker.complete(USER)
        with pytest.raises(CircuitOpen):
            async for _ in breaker.stream(USER):
                pass
    assert len(fake_llm.requests) == 10


async def test_success_resets_the_count(fake_llm):
    breaker = make_breaker(fake_llm, FakeClock(), attempts=1)
    for _ in range(4):
        fake_llm.error(503)
    await fail_n(breaker, 4)
    fake_llm.reply_text("ok")
    await breaker.complete(USER)
    assert breaker.consecutive_failures == 0
    for _ in range(4):
        fake_llm.error(503)
    await fail_n(breaker, 4)
    assert breaker.state == "closed"


async def test_config_errors_do_not_open_it(fake_llm):
    breaker = make_breaker(fake_llm, FakeClock(), attempts=1)
    for _ in range(8):
        fake_llm.error(401)
    for _ in range(8):
        with pytest.raises(LLMConfigError):
            await breaker.complete(USER)
    assert breaker.state == "closed" and len(fake_llm.requests) == 8


async def test_half_open_admits_exactly_one_of_many_concurrent_callers(fake_llm):
    clock = FakeClock()
    breaker = await open_breaker(fake_llm, clock)
    before = len(fake_llm.requests)
    clock.now += 30
    assert breaker.state == "half_open"
    fake_llm.delay(0.3, then="probe ok")  # the probe stays in flight while the others arrive

    results = await asyncio.gather(*(breaker.complete(USER) for _ in range(12)), return_exceptions=True)

    assert len(fake_llm.requests) == before + 1
    oks = [r for r in results if isinstance(r, Completion)]
    assert [r.text for r in oks] == ["probe ok"]
    assert sum(isinstance(r, CircuitOpen) for r in results) == 11
    assert breaker.state == "closed"


async def test_probe_success_closes(fake_llm):
    clock = FakeClock()
    breaker = await open_breaker(fake_llm, clock)
    clock.now += 31
    fake_llm.reply_text("again")
    with capture_logs() as logs:
        assert (await breaker.complete(USER)).text == "again"
    assert breaker.state == "closed" and breaker.consecutive_failures == 0
    moves = [(e["from"], e["to"]) for e in logs if e["event"] == "circuit_state"]
    assert moves == [("open", "half_open"), ("half_open", "closed")]
    fake_llm.reply_text("normal")
    assert (await breaker.complete(USER)).text == "normal"


async def test_probe_failure_reopens_for_another_reset_period(fake_llm):
    clock = FakeClock()
    breaker = await open_breaker(fake_llm, clock)
    clock.now += 30
    await fail_n(breaker, 1)  # the probe (2 attempts, both 500)
    assert breaker.state == "open"
    count = len(fake_llm.requests)
    clock.now += 29
    with pytest.raises(CircuitOpen):
        await breaker.complete(USER)
    assert len(fake_llm.requests) == count
    clock.now += 1
    fake_llm.reply_text("back")
    assert (await breaker.complete(USER)).text == "back"
    assert breaker.state == "closed"


async def test_streamed_probe_closes_on_stream_done(fake_llm):
    clock = FakeClock()
    breaker = await open_breaker(fake_llm, clock)
    clock.now += 30
    fake_llm.stream_text("有教无类", chunk=2)
    events = [e async for e in breaker.stream(USER)]
    assert events[:2] == [StreamDelta("有教"), StreamDelta("无类")] and isinstance(events[-1], StreamDone)
    assert breaker.state == "closed"


async def test_stream_broken_after_first_token_counts_as_failure(fake_llm):
    breaker = make_breaker(fake_llm, FakeClock(), attempts=1)
    fake_llm.stream_then_fail("abcdef", after=1, chunk=2)
    with pytest.raises(LLMUnavailable):
        async for _ in breaker.stream(USER):
            pass
    assert breaker.consecutive_failures == 1


async def test_probe_abandoned_after_its_first_token_closes(fake_llm):
    clock = FakeClock()
    breaker = await open_breaker(fake_llm, clock)
    clock.now += 30
    fake_llm.stream_text("一二三四五六", chunk=1)
    probe = breaker.stream(USER)
    assert await probe.__anext__() == StreamDelta("一")
    with pytest.raises(CircuitOpen):  # the probe is still in flight
        await breaker.complete(USER)
    await probe.aclose()  # the caller gave up, but the endpoint answered: healthy
    assert breaker.state == "closed"
    fake_llm.reply_text("next")
    assert (await breaker.complete(USER)).text == "next"


async def test_probe_cancelled_before_its_first_token_returns_to_open(fake_llm):
    clock = FakeClock()
    breaker = await open_breaker(fake_llm, clock)
    clock.now += 30
    fake_llm.hang()
    before = len(fake_llm.requests)
    probe = asyncio.create_task(breaker.complete(USER))
    while len(fake_llm.requests) == before:  # until the probe reached the endpoint
        await asyncio.sleep(0.01)
    assert breaker.state == "half_open"
    probe.cancel()
    await asyncio.gather(probe, return_exceptions=True)
    assert breaker.state == "open" and breaker.transitions[-2:] == [("open", "half_open"), ("half_open", "open")]
    with pytest.raises(CircuitOpen):  # a full reset period again, never stuck half-open
        await breaker.complete(USER)
    clock.now += 30
    fake_llm.reply_text("back")
    assert (await breaker.complete(USER)).text == "back" and breaker.state == "closed"


class _DownThenStuck:
    """An inner LLM: the first call fails, later calls hang until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.calls = 0

    async def complete(self, messages, **_kw) -> Completion:
        self.calls += 1
        if self.calls == 1:
            raise LLMUnavailable("down")
        await self.release.wait()
        return Completion(text="late")

    async def stream(self, messages, **_kw):
        yield StreamDone(await self.complete(messages))


async def test_lost_probe_returns_to_open_then_a_new_probe_after_reset_s():
    clock, inner = FakeClock(), _DownThenStuck()
    breaker = CircuitBreakerLLM(inner, failures=1, reset_s=10, clock=clock)
    with pytest.raises(LLMUnavailable):
        await breaker.complete(USER)
    clock.now += 10
    first = asyncio.create_task(breaker.complete(USER))  # the probe, which never returns in time
    await asyncio.sleep(0)
    with pytest.raises(CircuitOpen):
        await breaker.complete(USER)
    clock.now += 10
    with pytest.raises(CircuitOpen, match="lost"):  # presumed lost: open again, not half-open
        await breaker.complete(USER)
    assert breaker.state == "open"
    clock.now += 10
    second = asyncio.create_task(breaker.complete(USER))  # a new probe
    await asyncio.sleep(0)
    assert inner.calls == 3
    inner.release.set()
    assert [c.text for c in await asyncio.gather(first, second)] == ["late", "late"]
    assert breaker.state == "closed"


def test_rejects_nonsense_thresholds():
    with pytest.raises(ValueError):
        CircuitBreakerLLM(_DownThenStuck(), failures=0)
