"""ReplyEvents as Server-Sent Events, and a response that stops the reply when the client leaves.

Event names (public API, see docs/web.md): ``delta`` ``{"text"}``, ``reset`` ``{"reason"}`` (discard
the text streamed so far; a regeneration or an error notice follows), ``tool`` ``{"name","phase","ok"}``,
``final`` ``{"text","citations":[{"n","id","ref"}],"level","trace_id"}``, ``notice``
``{"reason","text","trace_id","extra"}``.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import aclosing
from typing import Any, AsyncIterator

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
        return "notice", {"reason": event.reason, "text": event.text, "trace_id": event.trace_id, "extra": dict(event.extra)}
    raise TypeError(f"unknown event {type(event).__name__}")


class EventStreamResponse(Response):
    """Streams frames from ``frames`` and closes it (``aclosing``) when it ends or the client leaves.

    Starlette's StreamingResponse only notices a gone client on its next write and then leaves the
    iterator to the garbage collector; here a watcher waits for ``http.disconnect`` and cancels the
    pump at once, so the engine stores the partial reply as cancelled and frees the person.
    """

    media_type = MEDIA_TYPE

    def __init__(self, frames: AsyncIterator[bytes], headers: dict[str, str] | None = None):
        self.status_code, self.background = 200, None
        all_headers = {"content-type": f"{MEDIA_TYPE}; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no", **(headers or {})}
        self.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in all_headers.items()]
        self._frames = frames  # no Content-Length: the body is chunked

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        async with aclosing(self._frames) as frames:
            pump = asyncio.create_task(self._pump(frames, send))
            gone = asyncio.create_task(_disconnected(receive))
            try:
                await asyncio.wait({pump, gone}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (pump, gone):
                    task.cancel()
                await asyncio.wait({pump, gone})
            if pump.cancelled():
                log.info("web_client_gone")
            elif pump.exception() is not None:
                raise pump.exception()

    @staticmethod
    async def _pump(frames: AsyncIterator[bytes], send: Send) -> None:
        async for chunk in frames:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
