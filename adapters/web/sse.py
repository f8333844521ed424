"""ReplyEvents as Server-Sent Events, and a response that stops the reply when the client leaves.

Event names (public API, see docs/web.md): ``delta`` ``{"text"}``, ``reset`` ``{"reason"}`` (discard
the text streamed so far; a regeneration or an error notice follows), ``tool`` ``{"name","phase","ok"}``,
``final`` ``{"text","citations":[{"n","id","ref"}],"level","trace_id"}``, ``notice``
``{"reason","text","trace_id","extra"}``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Any

import structlog
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from core.events import FinalReply, Notice, ReplyEvent, TextDelta, TextReset, ToolStep

log = structlog.get_logger(__name__)

MEDIA_TYPE = "text/event-stream"


def frame(name: str, data: dict[str, Any]) -> bytes:
    """One SSE frame; the JSON is on one line (json.dumps escapes newlines)."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n".encode()


def sse_event(event: ReplyEvent) -> tuple[str, dict[str, Any]]:
    """The SSE event name and payload for one engine event."""
    if isinstance(event, TextDelta):
        return "delta", {"text": event.text}
    if isinstance(event, TextReset):
        return "reset", {"reason": event.reason}
    if isinstance(event, ToolStep):
        return "tool", {"name": event.name, "phase": event.phase, "ok": event.ok}
    if isinstance(event, FinalReply):
        citations = [{"n": c.n, "id": c.id, "ref": c.ref} for c in event.citations]
        return "final", {"text": event.text, "citations": citations, "level": event.level, "trace_id": event.trace_id}
    if isinstance(event, Notice):
        return "notice", {
            "reason": event.reason,
            "text": event.text,
            "trace_id": event.trace_id,
            "extra": dict(event.extra),
        }
    raise TypeError(f"unknown event {type(event).__name__}")


class EventStreamResponse(Response):
    """Streams frames from ``frames`` and closes it (``aclosing``) when it ends or the client leaves.

    A watcher waits for ``http.disconnect`` and stops the producer at once (whatever the ASGI server
    version, and even while the engine is silent in a long tool call), so the engine stores the
    partial reply as cancelled and frees the person. While no frame comes for ``heartbeat_s``, an SSE
    comment (``: ping``) keeps proxies from closing an idle connection.
    """

    media_type = MEDIA_TYPE

    def __init__(
        self, frames: AsyncGenerator[bytes, None], headers: dict[str, str] | None = None, *, heartbeat_s: float = 15.0
    ):
        self.status_code, self.background = 200, None
        all_headers = {
            "content-type": f"{MEDIA_TYPE}; charset=utf-8",
            "cache-control": "no-cache",
            "x-accel-buffering": "no",
            **(headers or {}),
        }
        self.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in all_headers.items()]
        self._frames = frames  # no Content-Length: the body is chunked
        self._heartbeat_s = heartbeat_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        queue: asyncio.Queue = asyncio.Queue(maxsize=64)
        async with aclosing(self._frames) as frames:
            produce = asyncio.create_task(_produce(frames, queue))
            gone = asyncio.create_task(_disconnected(receive))
            try:
                delivered = await self._deliver(queue, send, gone)
            finally:
                for task in (produce, gone):
                    task.cancel()
                await asyncio.wait({produce, gone})
            if not delivered:
                log.info("web_client_gone")
            elif not produce.cancelled() and (error := produce.exception()) is not None:
                raise error

    async def _deliver(self, queue: asyncio.Queue, send: Send, gone: asyncio.Task) -> bool:
        """Send frames until the end (True) or until the client is gone (False).

        The frames already waiting go out together in one body message (one socket write where
        they would have been several: a model's chunks often arrive several to a read).
        """
        while not gone.done():
            if queue.empty():
                get = asyncio.create_task(queue.get())
                await asyncio.wait({get, gone}, timeout=self._heartbeat_s, return_when=asyncio.FIRST_COMPLETED)
                if not get.done():
                    get.cancel()
                    if gone.done():
                        return False
                    await send({"type": "http.response.body", "body": b": ping\n\n", "more_body": True})
                    continue
                chunks = [get.result()]
            else:
                chunks = []
            while not queue.empty() and (not chunks or chunks[-1] is not _END):
                chunks.append(queue.get_nowait())
            ended = chunks[-1] is _END
            body = b"".join(chunks[:-1] if ended else chunks)
            await send({"type": "http.response.body", "body": body, "more_body": not ended})
            if ended:
                return True
        return False


_END = object()


async def _produce(frames: AsyncIterator[bytes], queue: asyncio.Queue) -> None:
    """Frames into the queue, then _END (also after a failure; a cancelled producer has no reader)."""
    try:
        async for chunk in frames:
            await queue.put(chunk)
    except Exception:
        await queue.put(_END)
        raise
    await queue.put(_END)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
