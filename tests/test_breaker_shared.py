"""One circuit-breaker contract for the in-process breaker and the Redis-shared one (real server):
failures counted together, every process fails fast while open, one probe across all in half-open."""

from __future__ import annotations

import asyncio
import socket

import pytest

from core.llm.breaker import CircuitBreakerLLM
from core.llm.breaker_redis import SharedCircuitBreakerLLM
from core.llm.errors import CircuitOpen, LLMUnavailable
from core.llm.types import Completion
from tests.helpers_db import redis_prefix  # noqa: F401

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
async def breakers(request):
    """Factory: breakers over one SwitchableLLM; Redis ones share state (as N processes would)."""
    llm = SwitchableLLM()
    made: list = []

    def factory():
        if request.param == "memory":
            if not made:
                made.append(CircuitBreakerLLM(llm, failures=3, reset_s=RESET_S))
            return made[0]
        url, prefix = request.getfixturevalue("redis_prefix")
        breaker = SharedCircuitBreakerLLM(llm, url, prefix=prefix, failures=3, reset_s=RESET_S)
        made.append(breaker)
        return breaker

    yield factory, llm
    for breaker in made:
        if isinstance(breaker, SharedCircuitBreakerLLM):
            await breaker._redis.aclose()


async def outcome(breaker) -> str:
    try:
        await breaker.complete(USER)
        return "ok"
    except CircuitOpen:
        return "open"
    except LLMUnavailable:
        return "failed"


async def test_failures_from_all_processes_open_it_for_all(breakers):
    factory, llm = breakers
    a, b = factory(), factory()
    llm.down = True
    assert [await outcome(x) for x in (a, b, a)] == ["failed"] * 3
    calls = llm.calls
    assert [await outcome(x) for x in (a, b, b)] == ["open"] * 3
    assert llm.calls == calls  # nobody hammered the endpoint


async def test_one_probe_across_processes_then_closed(breakers):
    factory, llm = breakers
    a, b = factory(), factory()
    llm.down = True
    for x in (a, b, a):
        await outcome(x)
    await asyncio.sleep(RESET_S + 0.1)
    llm.down, calls = False, llm.calls
    llm.gate.clear()  # the probe stays in flight
    probe = asyncio.create_task(outcome(a))
    await asyncio.sleep(0.1)
    assert [await outcome(x) for x in (b, a, b)] == ["open"] * 3
    llm.gate.set()
    assert await probe == "ok" and llm.calls == calls + 1
    assert [await outcome(x) for x in (a, b)] == ["ok", "ok"]


async def test_a_failed_probe_opens_it_again(breakers):
    factory, llm = breakers
    a, b = factory(), factory()
    llm.down = True
    for x in (a, b, a):
        await outcome(x)
    await asyncio.sleep(RESET_S + 0.1)
    assert await outcome(b) == "failed"  # the probe
    assert await outcome(a) == "open"


async def test_redis_down_falls_back_to_a_local_breaker():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = SwitchableLLM()
    breaker = SharedCircuitBreakerLLM(llm, f"redis://127.0.0.1:{port}/0", failures=3, reset_s=RESET_S)
    try:
        assert await outcome(breaker) == "ok"
        llm.down = True
        assert [await outcome(breaker) for _ in range(4)] == ["failed"] * 3 + ["open"]
    finally:
        await breaker.aclose()
