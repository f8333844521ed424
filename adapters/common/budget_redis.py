"""Per-chat outbound budgets shared by every process, in Redis (a :class:`~adapters.common.budget.ChatGate`).

One hash per chat (``<prefix><chat>``) holds, on Redis' clock (µs): ``next`` (the earliest start of
the next request), ``prev`` (``next`` before the last grant, to give a slot back), ``busy_by`` /
``busy_until`` (the request in flight and when its claim lapses, e.g. after its process died) and
``paused_until`` (a 429's ``retry_after`` or a failure's backoff, seen by every process). A sorted set
``<prefix><chat>:urgent`` holds the final answers waiting for the chat (scored by when they lapse);
while one waits, previews (``urgent=False``) are refused in every process.

So across processes: one request per chat in flight; the next starts ``interval`` after the start
and after the end of the last one (1 s in a Telegram private chat, 3 s in a group — under 20 a
minute); finals before previews; a 429 in one process pauses the chat in all. Telegram counts a
request when it arrives and our claim starts before it is sent, so counting from the end of the last
request is what keeps the server's spacing when a request waited in the bot-wide queue.

Redis unreachable: ``claim`` answers None and the process paces the chat alone (fail open, as for the
bot-wide schedule), logged once as ``budget_redis_down``.
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.exceptions import RedisError

from core.failopen import FailOpen

LEASE_S = 15.0  # a claim in flight lapses after this (its process died); longer than a queued request waits
POLL_S = 0.1  # how soon to ask again while another process's request is in flight

_CLAIM = """
local t = redis.call('TIME'); local now = t[1] * 1000000 + t[2]
local token, urgent, interval = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local lease, poll, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local h = redis.call('HMGET', KEYS[1], 'next', 'busy_until', 'paused_until')
local free_at = math.max(tonumber(h[1] or '0'), tonumber(h[3] or '0'))
local wait = free_at - now
local busy = tonumber(h[2] or '0') - now
if busy > 0 then wait = math.max(wait, math.min(busy, poll)) end
if urgent == 0 and redis.call('ZCARD', KEYS[2]) > 0 then wait = math.max(wait, poll) end
if wait > 0 then
  if urgent == 1 then
    redis.call('ZADD', KEYS[2], now + wait + 10 * poll, token)
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
  return wait
end
redis.call('HSET', KEYS[1], 'prev', h[1] or '0', 'next', now + interval,
  'busy_by', token, 'busy_until', now + lease)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZREM', KEYS[2], token)
return 0
"""

_DONE = """
local t = redis.call('TIME'); local now = t[1] * 1000000 + t[2]
local token, sent, interval, pause, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local h = redis.call('HMGET', KEYS[1], 'busy_by', 'next', 'prev', 'paused_until')
local mine = h[1] == token
if mine then redis.call('HSET', KEYS[1], 'busy_by', '', 'busy_until', 0) end
if sent == 0 then
  if mine then redis.call('HSET', KEYS[1], 'next', h[3] or '0') end
  return 0
end
redis.call('HSET', KEYS[1], 'next', math.max(tonumber(h[2] or '0'), now + interval))
if pause > 0 then
  redis.call('HSET', KEYS[1], 'paused_until', math.max(tonumber(h[4] or '0'), now + pause))
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 0
"""


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


class RedisChatGate:
    """:class:`~adapters.common.budget.ChatGate` in Redis.

    Args:
        redis: the client (built once in bot/shared_state.py; closed there).
        prefix: key prefix for this platform's chats, e.g. ``fuzi:budget:telegram:``.
        lease_s: how long a claim in flight holds the chat at most.
    """

    def __init__(self, redis: Redis, prefix: str, *, lease_s: float = LEASE_S) -> None:
        self._claim = redis.register_script(_CLAIM)
        self._done = redis.register_script(_DONE)
        self.prefix, self.lease_s = prefix, lease_s
        self._health = FailOpen("budget")

    def _keys(self, chat: str) -> list[str]:
        return [f"{self.prefix}{chat}", f"{self.prefix}{chat}:urgent"]

    def _ttl_ms(self, interval: float, pause: float = 0.0) -> int:
        return int((max(interval, pause) + self.lease_s) * 1000) + 60_000

    async def claim(self, chat: str, token: str, *, urgent: bool, interval: float) -> float | None:
        args: list[int | str] = [
            token,
            int(urgent),
            _us(interval),
            _us(self.lease_s),
            _us(POLL_S),
            self._ttl_ms(interval),
        ]
        try:
            wait_us = await self._claim(keys=self._keys(chat), args=args)
        except RedisError as exc:
            self._health.failed(exc)
            return None
        self._health.answered()
        return int(wait_us) / 1_000_000

    async def done(self, chat: str, token: str, *, sent: bool, interval: float, pause: float) -> None:
        args: list[int | str] = [token, int(sent), _us(interval), _us(pause), self._ttl_ms(interval, pause)]
        try:
            await self._done(keys=self._keys(chat), args=args)
        except RedisError as exc:
            self._health.failed(exc)
