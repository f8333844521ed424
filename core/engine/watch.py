"""Replies this process is running, kept visibly alive; replies of processes that died, repaired.

Every `lease_s / 3` the watch (one per process):

1. writes the final status of replies whose final text was delivered but whose status could not be
   written then (the database was down): `confirm` keeps them until it can;
2. renews the heartbeat of the reply rows this process is running (`message.heartbeat_at`), so no
   other process takes them for dead;
3. sweeps: a "streaming" row whose heartbeat (or creation) is older than `lease_s` belongs to a
   process that died; the first live process to see it closes it (and its question) as
   "interrupted" and hands it to the adapters (`on_interrupted`), which edit the frozen message into
   "interrupted, please ask again". Only replies on the platforms whose adapters run here (they
   announce themselves by asking, `take_interrupted`) are claimed: a Telegram process never closes
   a Discord reply it could not correct. So a crash is repaired within about `lease_s + lease_s / 3`
   by any replica that is still alive, not only by a later restart.

After the database was unreachable the watch waits `lease_s` of renewed heartbeats before it
sweeps again, so a reply that is alive in another replica (whose heartbeats failed during the same
outage) is not taken for dead the moment the database returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import structlog

from core.periodic import Periodic
from core.storage.replies import Interrupted, ReplyRepo

log = structlog.get_logger(__name__)


class ReplyWatch:
    """Heartbeats for this process's replies and the repair sweep for everyone's (module docstring).

    Args:
        replies: the reply rows.
        lease_s: a reply row not renewed for this long is taken for dead (FUZI_REDIS_REPLY_LEASE_S).
        on_interrupted: receives the rows this process closed (the engine passes them to adapters).
        clock: monotonic clock.
    """

    def __init__(
        self,
        replies: ReplyRepo,
        *,
        lease_s: float = 30.0,
        on_interrupted: Callable[[list[Interrupted]], None] = lambda rows: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._replies = replies
        self.lease_s = lease_s
        self._on_interrupted = on_interrupted
        self._clock = clock
        self.live: set[str] = set()
        self.platforms: set[str] = set()  # the sweep claims only replies this process can correct
        self._unconfirmed: dict[str, str] = {}
        self._healthy_since: float | None = clock()
        self._periodic = Periodic("fuzi-reply-watch", lambda: self.lease_s / 3, self.tick)

    def begin(self, trace_id: str) -> None:
        self.live.add(trace_id)

    def end(self, trace_id: str) -> None:
        """The reply is over; its heartbeat stops unless its final status is still to be written."""
        if trace_id not in self._unconfirmed:
            self.live.discard(trace_id)

    async def confirm(self, trace_id: str, status: str) -> None:
        """The final text reached the person: write the row's final status now, or on a later tick."""
        try:
            await self._replies.confirm(trace_id, status)
        except Exception as exc:
            log.warning("reply_confirm_deferred", trace_id=trace_id, error=type(exc).__name__)
            self._unconfirmed[trace_id] = status  # keeps its heartbeat: nobody closes a delivered reply

    def start(self) -> None:
        self._periodic.start()

    async def aclose(self) -> None:
        await self._periodic.aclose()

    async def tick(self) -> list[Interrupted]:
        """One round: deferred confirmations, heartbeats, then (storage healthy for a lease) the sweep."""
        try:
            for trace_id, status in list(self._unconfirmed.items()):
                await self._replies.confirm(trace_id, status)
                del self._unconfirmed[trace_id]
                self.live.discard(trace_id)
            await self._replies.heartbeat(set(self.live))
            if self._healthy_since is None:
                self._healthy_since = self._clock()
            if self._clock() - self._healthy_since < self.lease_s:
                return []
            silent_since = datetime.now(UTC) - timedelta(seconds=self.lease_s)
            closed = await self._replies.close_stale(silent_since, self.platforms)
        except Exception as exc:
            if self._healthy_since is not None:
                log.warning("reply_watch_storage_down", error=type(exc).__name__)
            self._healthy_since = None
            return []
        if closed:
            log.warning("replies_interrupted", count=len(closed), by="sweep")
            self._on_interrupted(closed)
        return closed
