"""A send rate shared by every process: N bots together stay under one platform limit.

`RedisPace.acquire(priority)` asks one bot-wide schedule in Redis for a send slot *now* (GCRA: one
"theoretical arrival time" key, advanced by one interval per grant, inside a Lua script on Redis'
clock). It never books a slot in the future: when the next slot is not due yet it answers how long
to wait, and the caller asks again then. So the schedule records the moments requests really go, and
two requests granted one interval apart leave one interval apart.

Why not book ahead (what this module did first): a process that booked a slot a second ahead and
then slept could send late (event-loop lag, a slow Redis answer), while another process sent its
later slot on time; the two met in one of Telegram's one-second windows and one got a 429 (1–3 per
100-chat burst with 2–4 replicas). Granting only at the moment of sending leaves just the jitter from
the grant to the server (milliseconds), which the margin under Telegram's limit (28 of 30 a second:
71 ms of compression before a 31st request fits in a window) absorbs.

Priorities hold across processes: a caller that must wait registers as a waiter of its priority
(a sorted set per priority, scored by when the registration lapses; a process granted a slot with more
queued stays registered for its next one), and a caller of a lower priority is refused while a higher
one is waiting anywhere. Finals therefore go before every process's edits,
and a chat's first message before other chats' later edits.

The next slot is one interval after the slot just granted, so a grant that comes a little late (the
caller's sleep ends late, a Redis round trip: 1–3 ms a grant, more on a loaded machine) does not move
the schedule on; a grant later than a quarter of an interval (``LATE_SHARE``) moves it on to three
quarters of an interval after the grant. So N processes together keep the full rate (moving the
schedule on by every grant's lateness lost 5–10 %: 25–27 a second at 28), and two grants are never
closer than three quarters of an interval: 31 requests in one of Telegram's seconds would take more
than 62 ms of jitter between grant and arrival (at 28 a second). Keeping the schedule for grants up to
half an interval late left 53 ms, and 4 replicas on one loaded machine then met 5 × 429.

Redis unreachable: `acquire` answers None (fail open for pacing: each process paces itself, so
N processes may together send up to N times the rate, and a 429 then pauses only the chat it hit),
logged once as `pace_redis_down`.
"""

from __future__ import annotations

import uuid
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from core.failopen import FailOpen

HOLD_US = 250_000  # a waiter's registration outlives its expected grant by this (its retry's round trip)
LATE_SHARE = 0.25  # a grant this share of an interval late (or less) keeps the schedule

_ACQUIRE = """
local t = redis.call('TIME'); local now = t[1] * 1000000 + t[2]
local interval, priority, me = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local hold, ttl, after = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local late_ok = tonumber(ARGV[7])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local wait = tat - now
for i = 2, priority + 1 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  local others = redis.call('ZCARD', KEYS[i])
  if redis.call('ZSCORE', KEYS[i], me) then others = others - 1 end
  if others > 0 then wait = math.max(wait, 0) + interval end
end
if wait > 0 then
  redis.call('ZADD', KEYS[priority + 2], now + wait + hold, me)
  redis.call('PEXPIRE', KEYS[priority + 2], ttl)
  return wait
end
redis.call('SET', KEYS[1], math.max(tat, now - late_ok) + interval, 'PX', ttl)
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], me) end
if after >= 0 then
  redis.call('ZADD', KEYS[after + 2], now + interval + hold, me)
  redis.call('PEXPIRE', KEYS[after + 2], ttl)
end
return 0
"""


class SharedPace(Protocol):
    """Grants send slots on a schedule shared by every process."""

    async def acquire(self, priority: int = 0, after: int | None = None) -> float | None:
        """Take a slot now (answer 0) or say how many seconds until one may be free (ask again then);
        None when the schedule is unreachable (the caller paces itself).

        ``priority``: 0 is the most urgent; a caller waits while one more urgent waits anywhere.
        ``after``: the priority of this process's next request, if one is queued: it stays registered
        as a waiter between this grant and its next question.
        """
        ...


class RedisPace:
    """`SharedPace` in Redis.

    Args:
        redis: the client (built once in bot/shared_state.py; closed there).
        key: the schedule's key (one per bot and limit, e.g. ``fuzi:pace:telegram``); the waiters of
            priority p are kept under ``<key>:waiting:<p>``.
        max_per_s: sends per second across all processes, evenly spaced.
        levels: how many priorities there are (0 … levels-1).
    """

    def __init__(self, redis: Redis, key: str, max_per_s: float, *, levels: int = 4) -> None:
        self._script = redis.register_script(_ACQUIRE)
        self._keys = [key, *(f"{key}:waiting:{p}" for p in range(levels))]
        self._interval_us = max(1, int(1_000_000 / max_per_s))
        self._late_us = int(self._interval_us * LATE_SHARE)
        self._ttl_ms = max(10_000, self._interval_us // 100)
        self._me = uuid.uuid4().hex  # this process's waiter id
        self._health = FailOpen("pace")

    async def acquire(self, priority: int = 0, after: int | None = None) -> float | None:
        top = len(self._keys) - 2
        priority = min(max(priority, 0), top)
        after_p = -1 if after is None else min(after, top)
        args: list[int | str] = [self._interval_us, priority, self._me, HOLD_US, self._ttl_ms, after_p, self._late_us]
        try:
            wait_us = await self._script(keys=self._keys, args=args)
        except RedisError as exc:
            self._health.failed(exc)
            return None
        self._health.answered()
        return int(wait_us) / 1_000_000
