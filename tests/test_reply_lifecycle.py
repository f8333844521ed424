"""The adapters' one reply-lifecycle helper: where a reply is shown, whether it arrived, and the
repair of frozen messages, with an engine double that records what it is told."""

from __future__ import annotations

import pytest

from adapters.common.lifecycle import ReplyLifecycle, close_interrupted
from adapters.common.sink import StreamStats
from core.shown_in import ShownIn
from tests.fakes.engine import ScriptedEngine


class _Reply:
    """Stands in for a StreamingReply: returns the given stats, or raises."""

    def __init__(self, stats: StreamStats | None = None, error: Exception | None = None) -> None:
        self.stats, self.error = stats, error

    async def run(self, events) -> StreamStats:
        if self.error is not None:
            raise self.error
        assert self.stats is not None
        return self.stats


async def test_shown_and_delivery_are_told_to_the_engine_in_typed_form():
    engine = ScriptedEngine()
    life = ReplyLifecycle(engine, "telegram", "t1", lambda handle: ShownIn("telegram", "-100123", handle))
    await life.shown(42)
    stats = await life.stream(_Reply(StreamStats(delivered=True)), [])
    assert stats.delivered
    with pytest.raises(RuntimeError):
        await life.stream(_Reply(error=RuntimeError("send failed")), [])
    assert engine.shown == [("t1", ShownIn("telegram", "-100123", 42))]
    assert engine.deliveries == [("t1", True), ("t1", False)]  # a reply that raised is not delivered


async def test_frozen_messages_are_corrected_once_and_a_gone_one_is_skipped():
    engine = ScriptedEngine()
    engine.interrupted = [ShownIn("discord", "9", 1), ShownIn("discord", "9"), ShownIn("telegram", "7", 2)]
    seen: list[ShownIn] = []

    async def correct(where: ShownIn) -> None:
        seen.append(where)
        if where.message_id == 1:
            raise LookupError("message deleted")

    assert await close_interrupted(engine, "discord", correct, gone=(LookupError,)) == 1
    assert seen == [ShownIn("discord", "9", 1), ShownIn("discord", "9")]
    assert await close_interrupted(engine, "discord", correct, gone=(LookupError,)) == 0
    assert engine.interrupted == [ShownIn("telegram", "7", 2)]  # another platform's stays for its adapter
