"""Reads an LLM stream in its own task so the agent can wait on it with a deadline.

Putting a timeout around `yield` inside an async generator would cancel whatever the *consumer* is
doing when the timer fires; reading the stream in a separate task and waiting on a queue keeps the
timeout on the agent's side, and the stream is always opened and closed in one task.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from core.llm.errors import LLMTimeout
from core.llm.types import StreamEvent

_END = object()


class StreamPump:
    """Drains `stream` into a queue; `next(timeout)` hands events over, re-raising stream errors."""

    def __init__(self, stream: AsyncIterator[StreamEvent]):
        self._queue: asyncio.Queue = asyncio.Queue()
        self._task = asyncio.ensure_future(self._drain(stream))

    async def _drain(self, stream: AsyncIterator[StreamEvent]) -> None:
        try:
            async for event in stream:
                self._queue.put_nowait(event)
            self._queue.put_nowait(_END)
        except Exception as exc:  # handed to the reader, who re-raises it
            self._queue.put_nowait(exc)
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()

    async def next(self, timeout_s: float | None) -> StreamEvent | None:
        """The next event, None at the end; raises TimeoutError past `timeout_s` and stream errors."""
        if timeout_s is not None and timeout_s <= 0:
            raise TimeoutError
        if self._queue.empty():
            item = await asyncio.wait_for(self._queue.get(), timeout_s)
        else:  # already here: no getter task, no timer (a stream's chunks often come several at a time)
            item = self._queue.get_nowait()
        if item is _END:
            return None
        if isinstance(item, TimeoutError):  # the stream's own timeout, not our deadline
            raise LLMTimeout("LLM stream timed out") from item
        if isinstance(item, BaseException):
            raise item
        return item

    async def close(self) -> None:
        """Stop reading (cancels the reader task) and wait until the stream is closed."""
        if not self._task.done():
            self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
