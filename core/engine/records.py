"""The engine's record of replies as adapters see them: delivered or not, where shown, cut short.

A mixin of `ChatService` (core/engine/service.py): the adapter-facing half of the reply's life in the
database (core/storage/replies.py), next to the repair sweep (core/engine/watch.py), which fills
`_interrupted` while the process runs.
"""

from __future__ import annotations

from datetime import datetime

import structlog

from core.engine.watch import ReplyWatch
from core.shown_in import ShownIn
from core.storage.replies import Interrupted
from core.storage.repos import Storage
from core.storage.status import STREAMING

log = structlog.get_logger(__name__)


class ReplyRecords:
    """`record_delivery`, `record_shown`, `close_interrupted`, `take_interrupted` of the Engine port."""

    _storage: Storage
    _interrupted: list[Interrupted]
    watch: ReplyWatch

    async def record_delivery(self, trace_id: str, delivered: bool) -> None:
        """The adapter's word on whether a reply's final text reached the chat after its retries.

        A delivered reply keeps its status; an undelivered one becomes "undelivered" (it stays
        stored, so nothing is lost, but the record no longer claims the person saw it).
        """
        if not delivered:
            changed = await self._storage.messages.set_status(  # STREAMING: stopped at the final, never confirmed
                trace_id, "assistant", "undelivered", only_if=("ok", STREAMING)
            )
            log.warning("reply_undelivered", trace_id=trace_id, rows=changed)

    async def record_shown(self, trace_id: str, where: ShownIn, part: int | None = None) -> bool:
        """The adapter's note of where a reply is shown (its own message, or message ``part`` of the
        answer); a reaction on that message later finds the reply (`record_feedback`). False: the
        reply's row was not written yet (a photo is still being read), nothing was noted."""
        return await self._storage.replies.shown_in(trace_id, where, part)

    async def close_interrupted(self, started_before: datetime | None = None) -> None:
        """At start: close the replies a crash cut short (core/storage/replies.py); adapters then
        take theirs with `take_interrupted` and correct the frozen messages."""
        self._interrupted.extend(await self._storage.replies.close_interrupted(started_before))
        if self._interrupted:
            log.warning("replies_interrupted", count=len(self._interrupted))

    def take_interrupted(self, platform: str) -> list[ShownIn]:
        """Where the interrupted replies of `platform` are shown: the message, or only the chat
        (`message_id` None) when nothing was shown yet (once: later calls get nothing)."""
        self.watch.platforms.add(platform)  # from now on the repair sweep claims this platform's replies
        mine = [r for r in self._interrupted if r.where.platform == platform]
        self._interrupted[:] = [r for r in self._interrupted if r not in mine]  # the watch extends this list
        return [r.where for r in mine]
