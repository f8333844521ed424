"""`RunningReplies` for N processes: one Redis lease per person, /cancel delivered by pub/sub.

The process that admits a reply (`hold`) takes `<prefix>reply:<person>` with SET NX and a short expiry
(`lease_s`, 30 s) and renews it every `lease_s / 3` while the reply runs, so a reply may run for
minutes, yet a process killed mid-reply frees the person within `lease_s`. Releasing deletes the
key only while it still holds this process's token (a compare-and-delete script), so a late
release never frees someone else's lease. /cancel in any process publishes the person id on
`<prefix>cancel`; every process listens and cancels the reply it runs for that person.

Redis unreachable: a person's reply is still admitted (fail open; this process's own one-per-person
rule still holds), /cancel reaches only this process, and each failure is logged
(`replies_redis_down`); the listener reconnects until Redis answers again.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from core.engine.admission import Busy, RunningReplies
from core.failopen import FailOpen

log = structlog.get_logger(__name__)

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisRunningReplies(RunningReplies):
    """`RunningReplies` shared by every process through Redis.

    Args:
        redis: the client (built once in bot/shared_state.py; closed there).
        prefix: key prefix (one per deployment; tests use one per test).
        lease_s: how long a lease lives without renewal (a crashed process's person is free after it).
    """

    def __init__(self, redis: Redis, *, prefix: str = "fuzi:", lease_s: float = 30.0) -> None:
        super().__init__()
        self._redis = redis
        self._prefix = prefix
        self._lease_ms = max(100, int(lease_s * 1000))
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)
        self._renewers: dict[int, asyncio.Task] = {}
        self._listener: asyncio.Task | None = None
        self._listening = asyncio.Event()
        self._health = FailOpen("replies")

    @property
    def channel(self) -> str:
        return f"{self._prefix}cancel"

    def _key(self, person_id: int) -> str:
        return f"{self._prefix}reply:{person_id}"

    async def start(self) -> None:
        """Start listening for /cancel from other processes (idempotent); waits until subscribed."""
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen(), name="fuzi-cancel-listener")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._listening.wait(), 5.0)

    @contextlib.asynccontextmanager
    async def hold(self, person_id: int) -> AsyncIterator[None]:
        """Hold the person's lease in Redis (and this process's slot) for the body; raises Busy when anyone holds it."""
        async with super().hold(person_id):
            token = await self._take(person_id)
            try:
                yield
            finally:
                await self._give_back(person_id, token)

    async def _take(self, person_id: int) -> str | None:
        """The lease's token (renewed from now on); None when Redis is down (fail open); raises Busy."""
        token = secrets.token_hex(8)
        try:
            taken = await self._redis.set(self._key(person_id), token, nx=True, px=self._lease_ms)
        except RedisError as exc:
            self._health.failed(exc, op="reserve")
            return None  # fail open: this process still runs one reply per person
        self._health.answered()
        if not taken:
            raise Busy(person_id)
        self._renewers[person_id] = asyncio.create_task(self._keep(person_id, token))
        return token

    async def _keep(self, person_id: int, token: str) -> None:
        """Renew the lease every third of its life while the reply runs."""
        while True:
            await asyncio.sleep(self._lease_ms / 3000)
            try:
                if not await self._renew(keys=[self._key(person_id)], args=[token, self._lease_ms]):
                    log.warning("reply_lease_lost", person=person_id)  # expired during a stall
                    return
            except (TimeoutError, RedisError, OSError) as exc:  # keep trying: the reply still runs
                self._health.failed(exc, op="renew")

    async def _give_back(self, person_id: int, token: str | None) -> None:
        """Stop renewing and delete the lease if it is still ours."""
        renewer = self._renewers.pop(person_id, None)
        if renewer is not None:
            renewer.cancel()
        if token is None:
            return
        try:
            await self._release(keys=[self._key(person_id)], args=[token])
        except (TimeoutError, RedisError, OSError) as exc:  # the lease expires by itself after lease_s
            self._health.failed(exc, op="release")

    async def cancel(self, person_id: int) -> bool:
        """Cancel the person's reply here or in whichever process runs it; False when none runs."""
        if await super().cancel(person_id):
            return True
        try:
            if not await self._redis.exists(self._key(person_id)):
                return False
            await self._redis.publish(self.channel, str(person_id))
        except RedisError as exc:
            self._health.failed(exc, op="cancel")
            return False
        log.info("reply_cancel_published", person=person_id)
        return True

    async def _listen(self) -> None:
        while True:
            pubsub = self._redis.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                self._listening.set()
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        with contextlib.suppress(ValueError):
                            await super().cancel(int(message["data"]))
            except RedisError as exc:
                self._listening.clear()
                self._health.failed(exc, op="listen")
                await asyncio.sleep(1.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def aclose(self) -> None:
        """Stop listening and renewing (held leases then expire within lease_s); the client stays open."""
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        for renewer in self._renewers.values():
            renewer.cancel()
