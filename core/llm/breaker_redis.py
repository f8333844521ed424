"""The circuit breaker's state shared by every process through Redis (FUZI_REDIS_URL).

Same states and rules as :class:`~core.llm.breaker.CircuitBreakerLLM` (read its docstring), but the
state (closed/open/half-open, consecutive failures, when it opened, when the probe started) lives
in one Redis hash and changes only inside Lua scripts timed by Redis' own clock. So N processes
count failures together, all stop calling an LLM that is down, and in half-open exactly one call
across all of them is the probe.

Redis unreachable: each process falls back to its own in-memory breaker (the parent class's state
machine) and logs `breaker_redis_down`; calls are neither blocked nor unprotected, and the shared
state is used again once Redis answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import cast

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from core.llm.breaker import CircuitBreakerLLM, Outcome, State, _closing
from core.llm.errors import CircuitOpen, LLMConfigError, LLMUnavailable
from core.llm.types import LLM, Completion, Message, StreamDone, StreamEvent

log = structlog.get_logger(__name__)
_STATES: tuple[State, ...] = ("closed", "open", "half_open")

# KEYS[1] the hash; ARGV reset_ms. Returns {code, wait_ms}: 0 pass, 1 probe, -1 open, -2 probe in flight.
_ADMIT = """
local t = redis.call('TIME'); local now = t[1] * 1000 + math.floor(t[2] / 1000)
local reset = tonumber(ARGV[1])
local state = redis.call('HGET', KEYS[1], 'state') or 'closed'
if state == 'closed' then return {0, 0} end
if state == 'open' then
  local opened = tonumber(redis.call('HGET', KEYS[1], 'opened_at') or '0')
  if now - opened < reset then return {-1, reset - (now - opened)} end
  redis.call('HSET', KEYS[1], 'state', 'half_open')
end
local probe = tonumber(redis.call('HGET', KEYS[1], 'probe_at') or '-1')
if probe >= 0 and now - probe < reset then return {-2, 0} end
redis.call('HSET', KEYS[1], 'probe_at', now)
return {1, 0}
"""
# KEYS[1] the hash; ARGV outcome, probe (0/1), threshold. Returns the state after.
_RECORD = """
local t = redis.call('TIME'); local now = t[1] * 1000 + math.floor(t[2] / 1000)
local outcome, probe, threshold = ARGV[1], ARGV[2] == '1', tonumber(ARGV[3])
local state = redis.call('HGET', KEYS[1], 'state') or 'closed'
if probe then redis.call('HDEL', KEYS[1], 'probe_at') end
if outcome == 'success' then
  redis.call('HSET', KEYS[1], 'failures', 0)
  if probe and state == 'half_open' then state = 'closed'; redis.call('HSET', KEYS[1], 'state', state) end
elseif outcome == 'failure' then
  local n = redis.call('HINCRBY', KEYS[1], 'failures', 1)
  if (probe and state == 'half_open') or (state == 'closed' and n >= threshold) then
    state = 'open'; redis.call('HSET', KEYS[1], 'state', state, 'opened_at', now)
  end
end
return state
"""


class SharedCircuitBreakerLLM(CircuitBreakerLLM):
    """`CircuitBreakerLLM` whose state is shared through Redis.

    Args:
        inner: the LLM to protect.
        redis_url: e.g. ``redis://host:6379/0``.
        prefix: key prefix (one per deployment; tests use one per test).
        failures, reset_s: as for `CircuitBreakerLLM`.
    """

    def __init__(self, inner: LLM, redis_url: str, *, prefix: str = "fuzi:", failures: int = 5, reset_s: float = 30.0):
        super().__init__(inner, failures=failures, reset_s=reset_s)
        self._redis = Redis.from_url(redis_url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._key = f"{prefix}breaker:llm"
        self._admit_script = self._redis.register_script(_ADMIT)
        self._record_script = self._redis.register_script(_RECORD)
        self._down = False
        self._pending: set[asyncio.Task] = set()

    async def shared_state(self) -> str:
        """The state in Redis ("closed", "open" or "half_open"; open is reported until a caller probes)."""
        raw = await self._redis.hget(self._key, "state")
        return raw.decode() if isinstance(raw, bytes) else (raw or "closed")

    async def _admit_shared(self) -> tuple[bool, object | None]:
        """(shared, probe): admitted through Redis or, when it is down, through the local state machine."""
        try:
            code, wait_ms = await self._admit_script(keys=[self._key], args=[int(self._reset_s * 1000)])
        except RedisError as exc:
            self._mark_down(exc)
            return False, self._admit()
        self._mark_up()
        if code == -1:
            raise CircuitOpen(f"LLM circuit open ({int(wait_ms) / 1000:.1f}s left)")
        if code == -2:
            raise CircuitOpen("LLM circuit half-open: a probe call is in flight")
        return True, (True if code == 1 else None)

    async def _record_shared(self, outcome: Outcome, shared: bool, probe: object | None) -> None:
        if not shared:
            self._record(outcome, probe)
            return
        if outcome == "neutral" and not probe:
            return
        try:
            state = await self._record_script(keys=[self._key], args=[outcome, int(probe is not None), self._threshold])
        except RedisError as exc:
            self._mark_down(exc)
            return
        state = state.decode() if isinstance(state, bytes) else state
        if state in _STATES and state != self._state:
            log.warning("circuit_state", **{"from": self._state, "to": state}, shared=True)
            self._state = cast(State, state)  # checked against _STATES above

    def _record_later(self, outcome: Outcome, shared: bool, probe: object | None) -> None:
        """Record from a cancelled or abandoned call without awaiting in its cleanup."""
        task = asyncio.get_running_loop().create_task(self._record_shared(outcome, shared, probe))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """As `CircuitBreakerLLM.complete`, admitted and recorded through the shared state."""
        shared, probe = await self._admit_shared()
        try:
            result = await self._inner.complete(messages, tools=tools, temperature=temperature, max_tokens=max_tokens)
        except LLMConfigError:
            await self._record_shared("success", shared, probe)
            raise
        except LLMUnavailable:
            await self._record_shared("failure", shared, probe)
            raise
        except BaseException:
            self._record_later("neutral", shared, probe)
            raise
        await self._record_shared("success", shared, probe)
        return result

    async def stream(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        """As `CircuitBreakerLLM.stream`: success is reaching StreamDone."""
        shared, probe = await self._admit_shared()
        recorded = False
        try:
            events = self._inner.stream(messages, tools=tools, temperature=temperature, max_tokens=max_tokens)
            async with _closing(events):
                async for event in events:
                    if isinstance(event, StreamDone) and not recorded:
                        recorded = True
                        await self._record_shared("success", shared, probe)
                    yield event
        except LLMConfigError:
            if not recorded:
                recorded = True
                await self._record_shared("success", shared, probe)
            raise
        except LLMUnavailable:
            if not recorded:
                recorded = True
                await self._record_shared("failure", shared, probe)
            raise
        finally:
            if not recorded:
                self._record_later("neutral", shared, probe)

    async def aclose(self) -> None:
        """Close the inner LLM and the Redis connection."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        await super().aclose()
        await self._redis.aclose()

    def _mark_down(self, exc: BaseException) -> None:
        if not self._down:
            log.error("breaker_redis_down", error=type(exc).__name__, policy="local_breaker")
        self._down = True

    def _mark_up(self) -> None:
        if self._down:
            log.info("breaker_redis_recovered")
        self._down = False
