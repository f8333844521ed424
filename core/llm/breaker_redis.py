"""The circuit breaker's state shared by every process through Redis (FUZI_REDIS_URL).

The same transitions as :class:`~core.llm.breaker_store.MemoryBreakerStore` (read its module
docstring), run inside Lua scripts timed by Redis' own clock on one hash: N processes count failures
together, all stop calling an LLM that is down, and in half-open exactly one call across all of them
is the probe; a probe presumed lost opens the circuit again. Each opening increments the hash's
``generation`` and is published on ``<key>:opened``: every process sheds the calls it admitted
before (the policy in core/llm/breaker.py waits on `opened_since`), so nobody waits out their own
timeout after the breaker opened anywhere.

Redis unreachable: each process falls back to its own in-memory store and logs
`breaker_redis_down`; calls are neither blocked nor unprotected, and the shared state is used again
once Redis answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any, cast

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from core.failopen import FailOpen
from core.llm.breaker import CircuitBreakerLLM
from core.llm.breaker_store import STATES, MemoryBreakerStore, Openings, Outcome, State, Ticket
from core.llm.errors import CircuitOpen
from core.llm.types import LLM

log = structlog.get_logger(__name__)

LISTEN_POLL_S = 1.0  # the opening listener's read timeout (and its pause after a Redis error)

_NOW = "local t = redis.call('TIME'); local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"
_OPEN = """
local function open_it(state_key, channel, now)
  local gen = redis.call('HINCRBY', state_key, 'generation', 1)
  redis.call('HSET', state_key, 'state', 'open', 'opened_at', now)
  redis.call('HDEL', state_key, 'probe', 'probe_at')
  redis.call('PUBLISH', channel, gen)
  return gen
end
"""
# KEYS[1] the hash, KEYS[2] the channel; ARGV reset_ms, a new probe id.
# Returns {code, wait_ms, generation, failures}: 0 pass, 1 probe, -1 open, -2 probe in flight, -3 probe lost.
_ADMIT = (
    _NOW
    + _OPEN
    + """
local reset = tonumber(ARGV[1])
local gen = tonumber(redis.call('HGET', KEYS[1], 'generation') or '0')
local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')
local state = redis.call('HGET', KEYS[1], 'state') or 'closed'
if state == 'closed' then return {0, 0, gen, failures} end
if state == 'open' then
  local opened = tonumber(redis.call('HGET', KEYS[1], 'opened_at') or '0')
  if now - opened < reset then return {-1, reset - (now - opened), gen, failures} end
  redis.call('HSET', KEYS[1], 'state', 'half_open')
end
local probe_at = tonumber(redis.call('HGET', KEYS[1], 'probe_at') or '-1')
if probe_at >= 0 then
  if now - probe_at < reset then return {-2, 0, gen, failures} end
  return {-3, reset, open_it(KEYS[1], KEYS[2], now), failures}
end
redis.call('HSET', KEYS[1], 'probe', ARGV[2], 'probe_at', now)
return {1, 0, gen, failures}
"""
)
# KEYS[1] the hash, KEYS[2] the channel; ARGV outcome, probe id ('' when not a probe), threshold.
# Returns {state, failures, generation}.
_RECORD = (
    _NOW
    + _OPEN
    + """
local outcome, probe, threshold = ARGV[1], ARGV[2], tonumber(ARGV[3])
local state = redis.call('HGET', KEYS[1], 'state') or 'closed'
local function result()
  local gen = tonumber(redis.call('HGET', KEYS[1], 'generation') or '0')
  return {redis.call('HGET', KEYS[1], 'state') or 'closed', tonumber(redis.call('HGET', KEYS[1], 'failures') or '0'), gen}
end
if probe ~= '' then
  if redis.call('HGET', KEYS[1], 'probe') ~= probe then return result() end
  redis.call('HDEL', KEYS[1], 'probe', 'probe_at')
  if (outcome == 'neutral' or outcome == 'shed') and state == 'half_open' then
    open_it(KEYS[1], KEYS[2], now)
    return result()
  end
end
if outcome == 'success' then
  redis.call('HSET', KEYS[1], 'failures', 0)
  if probe ~= '' and state == 'half_open' then redis.call('HSET', KEYS[1], 'state', 'closed') end
elseif outcome == 'failure' then
  local n = redis.call('HINCRBY', KEYS[1], 'failures', 1)
  if (probe ~= '' and state == 'half_open') or (state == 'closed' and n >= threshold) then
    open_it(KEYS[1], KEYS[2], now)
  end
end
return result()
"""
)


class RedisBreakerStore:
    """The breaker's state in one Redis hash, shared by every process.

    Args:
        redis: the client (built once in bot/shared_state.py; closed there).
        key: the hash's key (one per deployment: ``<prefix>breaker:llm``).
        failures, reset_s: as for the memory store.
    """

    def __init__(self, redis: Redis, *, key: str, failures: int, reset_s: float):
        self._local = MemoryBreakerStore(failures=failures, reset_s=reset_s)
        self._redis, self._key, self._channel = redis, key, f"{key}:opened"
        self._threshold, self._reset_ms = failures, int(reset_s * 1000)
        self._admit_script = redis.register_script(_ADMIT)
        self._record_script = redis.register_script(_RECORD)
        self._state: State = "closed"
        self._failures = 0
        self._health = FailOpen("breaker", policy="local_breaker")
        # the openings listener reports apart: its outage must not switch `state` to the local store
        self._listen_health = FailOpen("breaker_listen", policy="resubscribe_each_poll")
        self._listener: asyncio.Task | None = None
        self._pending: set[asyncio.Task] = set()
        self.openings = Openings()
        self.transitions: list[tuple[str, str]] = []

    @property
    def state(self) -> State:
        """The last state seen in Redis (the local fallback's while Redis is unreachable)."""
        return self._local.state if self._health.down else self._state

    @property
    def failures(self) -> int:
        return self._local.failures if self._health.down else self._failures

    async def shared_state(self) -> str:
        """The state in Redis ("closed", "open" or "half_open"; open is reported until a caller probes)."""
        raw = await self._redis.hget(self._key, "state")
        return raw.decode() if isinstance(raw, bytes) else (raw or "closed")

    async def admit(self) -> Ticket:
        self._listen()
        probe = uuid.uuid4().hex
        try:
            code, wait_ms, generation, failures = await self._admit_script(
                keys=[self._key, self._channel], args=[self._reset_ms, probe]
            )
        except RedisError as exc:
            self._health.failed(exc)
            ticket = self._local.admit_now()
            return Ticket(ticket.probe, ticket.generation, local=True)
        self._health.answered()
        self._failures = int(failures)
        generation = int(generation)
        if code == -1:
            self._saw("open", generation)
            raise CircuitOpen(f"LLM circuit open ({int(wait_ms) / 1000:.1f}s left)")
        if code == -2:
            raise CircuitOpen("LLM circuit half-open: a probe call is in flight")
        if code == -3:
            log.warning("circuit_probe_lost", shared=True)
            self._saw("open", generation)
            raise CircuitOpen("LLM circuit reopened: the last probe was lost")
        if code == 1:
            self._saw("half_open", generation)
            return Ticket(probe, generation)
        self._saw("closed", generation)
        return Ticket(None, generation)

    async def record(self, outcome: Outcome, ticket: Ticket) -> None:
        if ticket.local:
            self._local.record_now(outcome, ticket)
            return
        if ticket.probe is None and outcome in ("neutral", "shed"):
            return  # changes nothing outside half-open
        try:
            state, failures, generation = await self._record_script(
                keys=[self._key, self._channel], args=[outcome, ticket.probe or "", self._threshold]
            )
        except RedisError as exc:
            self._health.failed(exc)
            return
        self._failures = int(failures)
        self._saw(state.decode() if isinstance(state, bytes) else str(state), int(generation))

    def record_soon(self, outcome: Outcome, ticket: Ticket) -> None:
        """Record from a cancelled call's or a closed stream's cleanup, without awaiting there."""
        task = asyncio.get_running_loop().create_task(self.record(outcome, ticket))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def opened_since(self, ticket: Ticket) -> None:
        await (self._local.openings if ticket.local else self.openings).after(ticket.generation)

    async def aclose(self) -> None:
        """Finish pending records and stop listening (the client stays open: bot/ closes it)."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)

    # ------------------------------------------------------------------ openings elsewhere
    def _listen(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.get_running_loop().create_task(self._follow_openings())

    async def _follow_openings(self) -> None:
        """Advance the local generation on every opening published by any process.

        A message missed while Redis was away is caught up by the next admit or record (both
        return the generation).
        """
        while True:
            pubsub = self._redis.pubsub()
            try:
                await pubsub.subscribe(self._channel)
                self._listen_health.answered()
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=LISTEN_POLL_S)
                    if message is not None and message.get("type") == "message":
                        self._saw("open", int(message["data"]))
            except RedisError as exc:
                self._listen_health.failed(exc)
                await asyncio.sleep(LISTEN_POLL_S)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    def _saw(self, state: Any, generation: int) -> None:
        """Mirror what Redis answered, unless an opening newer than that answer was seen already."""
        if generation < self.openings.generation:
            return
        self.openings.advance(generation)
        if state in STATES and state != self._state:
            log.warning("circuit_state", **{"from": self._state, "to": state}, shared=True)
            self.transitions.append((self._state, state))
            self._state = cast(State, state)  # checked against STATES above


class SharedCircuitBreakerLLM(CircuitBreakerLLM):
    """`CircuitBreakerLLM` over a `RedisBreakerStore` (the policy is the same; only the store differs).

    Args:
        inner: the LLM to protect.
        redis: the client (built once in bot/shared_state.py; closed there).
        prefix: key prefix (one per deployment; tests use one per test).
        failures, reset_s: as for `CircuitBreakerLLM`.
    """

    def __init__(self, inner: LLM, redis: Redis, *, prefix: str = "fuzi:", failures: int = 5, reset_s: float = 30.0):
        self.shared = RedisBreakerStore(redis, key=f"{prefix}breaker:llm", failures=failures, reset_s=reset_s)
        super().__init__(inner, store=self.shared)

    async def shared_state(self) -> str:
        return await self.shared.shared_state()
