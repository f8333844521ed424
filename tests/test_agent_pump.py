"""StreamPump: hands a stream over a queue with deadlines, re-raises its errors, closes it on stop."""

from __future__ import annotations

import asyncio

import pytest

from core.agent.pump import StreamPump
from core.llm.errors import LLMConfigError, LLMUnavailable
from core.llm.types import Completion, StreamDelta, StreamDone


async def events(*items, closed: list | None = None, forever: bool = False):
    try:
        for item in items:
            if isinstance(item, BaseException):
                raise item
            yield item
        if forever:
            await asyncio.Event().wait()
    finally:
        if closed is not None:
            closed.append(True)


async def test_events_in_order_then_end():
    done = StreamDone(Completion(text="ab"))
    pump = StreamPump(events(StreamDelta("a"), StreamDelta("b"), done))
    assert [await pump.next(1), await pump.next(1), await pump.next(1)] == [StreamDelta("a"), StreamDelta("b"), done]
    assert await pump.next(1) is None
    await pump.close()


@pytest.mark.parametrize(
    ("error", "raised"), [(LLMConfigError("401", 401), LLMConfigError), (TimeoutError(), LLMUnavailable)]
)
async def test_stream_errors_reach_the_reader(error, raised):
    pump = StreamPump(events(StreamDelta("a"), error))
    assert await pump.next(1) == StreamDelta("a")
    with pytest.raises(raised):
        await pump.next(1)
    await pump.close()


async def test_deadline_and_close_stop_a_silent_stream():
    closed: list = []
    pump = StreamPump(events(StreamDelta("a"), closed=closed, forever=True))
    assert await pump.next(1) == StreamDelta("a")
    with pytest.raises(TimeoutError):
        await pump.next(0.01)
    with pytest.raises(TimeoutError):
        await pump.next(0)  # an exhausted budget fails at once
    await pump.close()
    assert closed == [True]
