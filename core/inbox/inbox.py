"""The inbox's rules: take an update durably, close it when handled, and hand over what a dead
process left behind.

1. ``accept`` writes the update before the adapter tells the platform it was received (the webhook's
   200, the polling offset moving past it, the gateway event handled); a repeat of a kept update is
   refused, so a platform's redelivery is answered once. A failed write raises: the adapter then
   refuses the update (a webhook answers 503 and Telegram sends it again) instead of dropping it.
2. ``done`` closes the entry when its handling ended (answered, refused, ignored — whatever the
   adapter did). Entries whose close failed are closed again on a later tick.
3. Every ``lease_s / 3`` the loop renews this process's pending entries (one statement), then looks for
   pending entries of the platforms whose adapters run here that nobody renewed for
   ``stale_after_s``: the owner died. Each is claimed by exactly one live process and handed to the
   platform's ``replay`` (handled again from its payload) — or, received more than ``max_age_s`` ago
   or already claimed ``max_attempts`` times, to ``lost`` (the person is told in one line that the
   answer was lost) and closed.
4. Closed entries are deleted after ``keep_s`` (a day): the store stays small, and a redelivery within
   that day is still recognised.

``stale_after_s`` is 1.5 × the reply lease: a person's running-reply lease (Redis, renewed every
lease / 3) has expired by then, so the replayed question is answered, not refused as "busy".
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from core.inbox.store import EntryStatus, InboxEntry, InboxStore
from core.periodic import Periodic

log = structlog.get_logger(__name__)

Handle = Callable[[InboxEntry], Awaitable[None]]


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class InboxHandlers:
    """What a platform's adapter does with the entries a dead process left.

    Attributes:
        replay: handle the update again from its payload (the adapter closes it with ``done`` as usual).
        lost: tell the person, in one line, that the answer to this update was lost.
    """

    replay: Handle
    lost: Handle


class Inbox:
    """Durable intake of platform updates (module docstring).

    Args:
        store: where entries are kept (SQL for every real process; memory where there is no database).
        lease_s: the reply lease (FUZI_REDIS_REPLY_LEASE_S); heartbeats every lease_s / 3.
        max_age_s: an orphan received longer ago than this is told lost instead of answered
            (FUZI_INBOX_MAX_AGE_S).
        keep_s: closed entries are deleted this long after closing.
        max_attempts: an entry claimed this often (its handling killed every process that tried) is lost.
        exclusive: this process is the only one on the store (an SQLite file): at the first sweep after
            a platform registers, every pending entry another process left is an orphan at once (that
            process is gone: this one replaced it), instead of after ``stale_after_s``.
        clock: wall clock (UTC), injectable for tests.
    """

    BATCH = 50  # entries claimed per tick

    def __init__(
        self,
        store: InboxStore,
        *,
        lease_s: float = 30.0,
        max_age_s: float = 600.0,
        keep_s: float = 86_400.0,
        max_attempts: int = 3,
        exclusive: bool = False,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self._store, self._clock = store, clock
        self.lease_s, self.max_age_s, self.keep_s, self.max_attempts = lease_s, max_age_s, keep_s, max_attempts
        self.owner = f"{socket.gethostname()[:30]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._handlers: dict[str, InboxHandlers] = {}
        self._exclusive = exclusive
        self._adopting: set[str] = set()  # exclusive: platforms whose first sweep takes every orphan
        self._unclosed: dict[tuple[str, str], EntryStatus] = {}
        self._purged_at: datetime | None = None
        self._periodic = Periodic("fuzi-inbox", lambda: self.lease_s / 3, self.tick)

    @property
    def stale_after_s(self) -> float:
        return self.lease_s * 1.5

    async def accept(self, platform: str, key: str, payload: Mapping[str, Any]) -> bool:
        """Keep the update; True when it is new, False for a repeat. Raises when it cannot be kept."""
        now = self._clock()
        entry = InboxEntry(platform, key, dict(payload), self.owner, now, now)
        fresh = await self._store.put(entry)
        if not fresh:
            log.info("inbox_repeat_dropped", platform=platform, key=key)
        return fresh

    async def done(self, platform: str, key: str, status: EntryStatus = "done") -> None:
        """Close the entry; a failure is logged and retried on a later tick (it stays ours meanwhile)."""
        try:
            await self._store.finish(platform, key, status, self._clock())
        except Exception as exc:
            log.warning("inbox_close_deferred", platform=platform, key=key, error=type(exc).__name__)
            self._unclosed[platform, key] = status

    def register(self, platform: str, handlers: InboxHandlers) -> None:
        """Take over ``platform``'s orphans from now on (its adapter runs in this process)."""
        self._handlers[platform] = handlers
        if self._exclusive:
            self._adopting.add(platform)

    def unregister(self, platform: str) -> None:
        self._handlers.pop(platform, None)

    def start(self) -> None:
        self._periodic.start()

    async def aclose(self) -> None:
        await self._periodic.aclose()

    async def tick(self) -> int:
        """One round (module docstring, step 3); returns how many orphans were handed over."""
        now = self._clock()
        try:
            for (platform, key), status in list(self._unclosed.items()):
                await self._store.finish(platform, key, status, now)
                del self._unclosed[platform, key]
            await self._store.heartbeat(self.owner, now)
            orphans = await self._orphans(now)
            handed = 0
            for entry in orphans:
                if await self._store.claim(entry, self.owner, now):
                    await self._hand_over(entry, now)
                    handed += 1
            await self._purge(now)
        except Exception as exc:
            log.warning("inbox_tick_failed", error=type(exc).__name__)
            return 0
        return handed

    async def _orphans(self, now: datetime) -> list[InboxEntry]:
        adopting, self._adopting = self._adopting & set(self._handlers), set()
        found = []
        if adopting:
            found += await self._store.stale(adopting, now, self.BATCH, not_owner=self.owner)
        if rest := set(self._handlers) - adopting:
            silent_since = now - timedelta(seconds=self.stale_after_s)
            found += await self._store.stale(rest, silent_since, self.BATCH, not_owner=self.owner)
        return found

    async def _hand_over(self, entry: InboxEntry, now: datetime) -> None:
        handlers = self._handlers.get(entry.platform)
        if handlers is None:  # unregistered between reading and claiming: the next owner takes it
            return
        age_s = (now - entry.received_at).total_seconds()
        fields = {"platform": entry.platform, "key": entry.key, "age_s": round(age_s, 1), "attempts": entry.attempts}
        if age_s > self.max_age_s or entry.attempts >= self.max_attempts:
            status: EntryStatus = "lost" if age_s > self.max_age_s else "failed"
            log.warning("inbox_orphan_lost", **fields, status=status)
            await self._safely(handlers.lost, entry, "inbox_lost_notice_failed")
            await self.done(entry.platform, entry.key, status)
            return
        log.warning("inbox_orphan_replayed", **fields)
        if not await self._safely(handlers.replay, entry, "inbox_replay_failed"):
            await self.done(entry.platform, entry.key, "failed")

    @staticmethod
    async def _safely(handle: Handle, entry: InboxEntry, event: str) -> bool:
        try:
            await handle(entry)
        except Exception as exc:
            log.warning(event, platform=entry.platform, key=entry.key, error=type(exc).__name__)
            return False
        return True

    async def _purge(self, now: datetime) -> None:
        if self._purged_at is not None and now - self._purged_at < timedelta(seconds=min(self.keep_s, 600)):
            return
        self._purged_at = now
        purged = await self._store.purge(now - timedelta(seconds=self.keep_s))
        if purged:
            log.info("inbox_purged", count=purged)
