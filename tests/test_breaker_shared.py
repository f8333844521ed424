"""One circuit-breaker contract for the in-process breaker and the Redis-shared one (real server):
failures counted together, every process fails fast while open, one probe across all in half-open,
a lost probe opens it again, and an opening sheds the calls every process is waiting on."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from core.llm.breaker import CircuitBreakerLLM
from core.llm.breaker_redis import SharedCircuitBreakerLLM
from core.llm.budget import ReplyBudget, reply_budget
from core.llm.errors import CircuitOpen, LLMUnavailable
from core.llm.types import Completion
from tests.fakes.clock import FakeClock
from tests.helpers_db import redis_client, redis_prefix  # noqa: F401
from tests.helpers_wait import eventually

USER = [{"role": "user", "content": "何为君子？"}]
RESET_S = 0.5


class SwitchableLLM:
    """An LLM port double whose endpoint is up or down; `gate` holds calls open; counts calls."""

    def __init__(self) -> None:
        self.down = False
        self.calls = 0
        self.gate = asyncio.Event()
        self.gate.set()

    async def complete(self, messages, *, tools=None, temperature=None, max_tokens=None) -> Completion:
        self.calls += 1
        await self.gate.wait()
        if self.down:
            raise LLMUnavailable("503 from the endpoint")
        return Completion(text="君子坦荡荡。")

    async def stream(self, messages, **kwargs):  # pragma: no cover - not used here
        raise NotImplementedError
        yield


@pytest.fixture(params=["memory", "redis"])
async def breakers(request, redis_client):
    """(factory, llm, wait): breakers over one SwitchableLLM; Redis ones share state (as N processes
    would). `wait(s)` lets `s` seconds pass on the breaker's clock: the in-process breaker's is a fake
    one (moved once every runnable task has run), the Redis one's is the server's (a real sleep)."""
    llm = SwitchableLLM()
    made: list = []
    clock = FakeClock()

    async def wait(seconds: float) -> None:
        if request.param == "memory":
            for _ in range(10):
                await asyncio.sleep(0)
            clock.advance(seconds)
        else:
            await asyncio.sleep(seconds)

    def factory():
        if request.param == "memory":
            if not made:
                made.append(CircuitBreakerLLM(llm, failures=3, reset_s=RESET_S, clock=clock))
            return made[0]
        url, prefix = request.getfixturevalue("redis_prefix")
        breaker = SharedCircuitBreakerLLM(llm, redis_client(url), prefix=prefix, failures=3, reset_s=RESET_S)
        made.append(breaker)
        return breaker

    yield factory, llm, wait
    for breaker in made:
        if isinstance(breaker, SharedCircuitBreakerLLM):
            await breaker.aclose()


async def outcome(breaker) -> str:
    try:
        await breaker.complete(USER)
        return "ok"
    except CircuitOpen:
        return "open"
    except LLMUnavailable:
        return "failed"


async def test_failures_from_all_processes_open_it_for_all(breakers):
    factory, llm, wait = breakers
    a, b = factory(), factory()
    llm.down = True
    assert [await outcome(x) for x in (a, b, a)] == ["failed"] * 3
    calls = llm.calls
    assert [await outcome(x) for x in (a, b, b)] == ["open"] * 3
    assert llm.calls == calls  # nobody hammered the endpoint


async def test_one_probe_across_processes_then_closed(breakers):
    factory, llm, wait = breakers
    a, b = factory(), factory()
    llm.down = True
    for x in (a, b, a):
        await outcome(x)
    await wait(RESET_S + 0.1)
    llm.down, calls = False, llm.calls
    llm.gate.clear()  # the probe stays in flight
    probe = asyncio.create_task(outcome(a))
    await eventually(lambda: llm.calls > calls)  # the probe is in flight
    assert [await outcome(x) for x in (b, a, b)] == ["open"] * 3
    llm.gate.set()
    assert await probe == "ok" and llm.calls == calls + 1
    assert [await outcome(x) for x in (a, b)] == ["ok", "ok"]


async def test_a_failed_probe_opens_it_again(breakers):
    factory, llm, wait = breakers
    a, b = factory(), factory()
    llm.down = True
    for x in (a, b, a):
        await outcome(x)
    await wait(RESET_S + 0.1)
    assert await outcome(b) == "failed"  # the probe
    assert await outcome(a) == "open"


async def test_redis_down_falls_back_to_a_local_breaker(redis_client):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = SwitchableLLM()
    breaker = SharedCircuitBreakerLLM(llm, redis_client(f"redis://127.0.0.1:{port}/0"), failures=3, reset_s=RESET_S)
    try:
        assert await outcome(breaker) == "ok"
        llm.down = True
        assert [await outcome(breaker) for _ in range(4)] == ["failed"] * 3 + ["open"]
    finally:
        await breaker.aclose()


async def test_a_lost_probe_opens_it_again_everywhere(breakers):
    factory, llm, wait = breakers
    a, b = factory(), factory()
    llm.down = True
    for x in (a, b, a):
        await outcome(x)
    await wait(RESET_S + 0.1)
    llm.gate.clear()  # the probe never comes back
    probe = asyncio.create_task(outcome(a))
    await wait(RESET_S + 0.1)
    with pytest.raises(CircuitOpen, match="lost"):
        await b.complete(USER)
    assert await outcome(a) == "open"  # open again for another reset period, not half-open
    probe.cancel()
    llm.gate.set()


async def _reply(breaker, wait_s: float | None) -> tuple[str, float]:
    """One person's call under a reply budget of `wait_s` (None: a background call, no budget)."""
    try:
        if wait_s is None:
            await breaker.complete(USER)
        else:
            with reply_budget(ReplyBudget(until=time.monotonic() + wait_s)):
                async with asyncio.timeout(wait_s):
                    await breaker.complete(USER)
        return "ok", time.monotonic()
    except CircuitOpen:
        return "shed", time.monotonic()
    except TimeoutError:
        return "gave_up", time.monotonic()


@pytest.mark.parametrize("mode", ["memory", "redis"])
async def test_hangs_open_it_and_nobody_waits_past_the_opening(mode, request, redis_client):
    """Two engines (separate Redis clients, as two processes): hangs seen by A open the breaker and
    every call B admitted earlier (people and a background memory call) is shed at that moment."""
    llm = SwitchableLLM()
    llm.gate.clear()  # the endpoint accepts every request and never answers
    if mode == "memory":
        a = b = CircuitBreakerLLM(llm, failures=3, reset_s=30)
    else:
        url, prefix = request.getfixturevalue("redis_prefix")
        a = SharedCircuitBreakerLLM(llm, redis_client(url), prefix=prefix, failures=3, reset_s=30)
        b = SharedCircuitBreakerLLM(llm, redis_client(url), prefix=prefix, failures=3, reset_s=30)
    try:
        waiting = [asyncio.create_task(_reply(b, None))]  # a background call: no reply budget
        for _ in range(10):  # people arriving one by one, each willing to wait 5 s
            waiting.append(asyncio.create_task(_reply(b, 5.0)))
            await asyncio.sleep(0.02)
        hangs = await asyncio.gather(*(_reply(a, 0.3) for _ in range(3)))  # three replies give up
        opened_at = time.monotonic()
        assert [r for r, _ in hangs] == ["gave_up"] * 3
        done = await asyncio.wait_for(asyncio.gather(*waiting), 3.0)
        assert [r for r, _ in done] == ["shed"] * 11
        assert max(t for _, t in done) - opened_at < 0.5  # nobody waited past the opening
        assert b.state == "open" and await outcome(b) == "open" and llm.calls == 14
    finally:
        await a.aclose()
        if b is not a:
            await b.aclose()
