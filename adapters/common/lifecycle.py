"""One reply's life as the engine records it, told by an adapter: where it is shown, whether its
final text arrived, and the frozen messages a crash left behind.

Every adapter that streams into platform messages (Telegram, Discord) takes the same three steps:

1. once the reply's first message exists, :meth:`ReplyLifecycle.shown` notes where it is (a
   :class:`core.shown_in.ShownIn`, read from the sink's handle by the adapter's ``where``): after a
   crash the repair finds the message, and a reaction on it finds the reply. A message shown before
   the reply's row exists (the placeholder of a photo still being read, of a question still being
   checked) is noted again with the reply's next event; as each final part goes out
   (:meth:`ReplyLifecycle.part`), the later messages of a split answer are noted too, and the first
   once more if it is not the message noted (Telegram sends anew when the message to edit is gone).
   A reply a restarted process could not correct (``repairable=False``: a Discord interaction's
   response needs its token) has every message noted for reactions only, as its parts go out;
2. :meth:`ReplyLifecycle.stream` runs the :class:`~adapters.common.stream.StreamingReply` and tells
   the engine whether every final part went out (not when streaming raised): an undelivered reply is
   marked so;
3. :func:`close_interrupted` takes the platform's replies a crash cut short and hands each to the
   adapter's ``correct`` (edit the frozen message into "interrupted, please ask again", or say so in a
   new message when nothing was shown yet); an error the platform raises for a deleted or too old
   message is logged, not raised.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable
from typing import Any

import structlog

from adapters.common.sink import StreamStats
from adapters.common.stream import StreamingReply
from core.events import ReplyEvent
from core.ports import Engine
from core.shown_in import ShownIn

log = structlog.get_logger(__name__)

Correct = Callable[[ShownIn], Awaitable[None]]
"""An adapter's correction of one interrupted reply: edit ``where.message_id``, or (None) post anew."""

Where = Callable[[Any], ShownIn | None]
"""An adapter's reading of a sink's handle: the platform message it is, or None (one the engine is
not told of, e.g. an ephemeral Discord response, which nobody can react to)."""


class ReplyLifecycle:
    """The engine's record of one reply on one platform (module docstring).

    Args:
        engine: the engine that answers (its `record_shown` and `record_delivery`).
        platform: "telegram", "discord" …
        trace_id: the reply's trace.
        where: the platform message a sink's handle is (None: not one to note).
        repairable: a restarted process can correct the reply's message (False: its messages are
            noted for reactions only).
    """

    def __init__(self, engine: Engine, platform: str, trace_id: str, where: Where, *, repairable: bool = True) -> None:
        self.engine, self.platform, self.trace_id, self.where = engine, platform, trace_id, where
        self.repairable = repairable
        self._first: ShownIn | None = None  # the reply's own message, as the engine was told
        self._noted = False  # ... and it was noted on the reply's row
        self._retried = False

    async def shown(self, handle: Any) -> None:
        """Note the reply's first message (``StreamingReply(on_shown=…)``; a failure is logged there)."""
        self._first = self.where(handle) if self.repairable else None
        if self._first is not None:
            self._noted = await self.engine.record_shown(self.trace_id, self._first)

    async def part(self, index: int, handle: Any) -> None:
        """Note final part ``index`` (``StreamingReply(on_part=…)``): a later message of a split
        answer, or the first unless it is the message already noted on the reply's row."""
        where = self.where(handle)
        if where is None:
            return
        if index > 0 or not self.repairable:
            await self.engine.record_shown(self.trace_id, where, index)
        elif where != self._first or not self._noted:
            self._first, self._noted = where, await self.engine.record_shown(self.trace_id, where)

    async def stream(self, reply: StreamingReply, events: AsyncIterable[ReplyEvent]) -> StreamStats:
        """Run ``reply`` over ``events``, then report its delivery; an error is reported undelivered and raised."""
        try:
            stats = await reply.run(self._noting(events))
        except Exception:
            await report_delivery(self.engine, self.trace_id, False)
            raise
        await report_delivery(self.engine, self.trace_id, stats.delivered)
        return stats

    async def _noting(self, events: AsyncIterable[ReplyEvent]) -> AsyncGenerator[ReplyEvent, None]:
        """``events``; a first message noted before the reply's row existed is noted again, once,
        before the next event (the row is written before the reply's first event)."""
        async for event in events:
            if self._first is not None and not self._noted and not self._retried:
                self._retried = True
                try:
                    self._noted = await self.engine.record_shown(self.trace_id, self._first)
                except Exception as exc:  # a missed note only means no correction after a crash
                    log.warning("shown_not_recorded", trace_id=self.trace_id, error=type(exc).__name__)
            yield event


async def report_delivery(engine: Engine, trace_id: str, delivered: bool) -> None:
    """Tell the engine whether the final text reached the chat; a failed status update is only logged."""
    try:
        await engine.record_delivery(trace_id, delivered)
    except Exception as exc:  # the reply itself is done; a failed status update is only logged
        log.warning("delivery_not_recorded", trace_id=trace_id, error=type(exc).__name__)


async def close_interrupted(
    engine: Engine, platform: str, correct: Correct, *, gone: tuple[type[Exception], ...] = ()
) -> int:
    """Correct each reply of ``platform`` a crash froze half-way; returns how many were corrected.

    ``gone`` are the platform's errors for a message that cannot be corrected (deleted, too old to
    edit, no access): logged and skipped. Each reply is handed out once (`Engine.take_interrupted`).
    """
    corrected = 0
    for where in engine.take_interrupted(platform):
        fields = {"platform": platform, "chat": where.chat, "message": where.message_id}
        try:
            await correct(where)
        except gone as exc:
            log.info("interrupted_not_edited", **fields, error=type(exc).__name__)
        else:
            corrected += 1
            log.info("interrupted_closed", **fields)
    return corrected
