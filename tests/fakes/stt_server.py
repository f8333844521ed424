"""A fake OpenAI-compatible transcription endpoint (`POST /v1/audio/transcriptions`) on 127.0.0.1.

Reads the multipart form the openai SDK sends (`file`, `model`, optional `language`), records it,
and answers the next scripted reply: `{"text": …}`, or an HTTP error in OpenAI's error shape.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass

from aiohttp import web

from tests.fakes.loopback import LoopbackServer


@dataclass
class Heard:
    """One request: the form fields and the uploaded file's name and size."""

    model: str
    language: str | None
    filename: str
    size: int
    authorization: str


class FakeTranscriber:
    """`async with FakeTranscriber() as stt:` then `stt.say("…")` / `stt.fail(500)`; `stt.base_url` ends in /v1."""

    def __init__(self) -> None:
        self.requests: list[Heard] = []
        self.latency_s = 0.0
        self._replies: deque[tuple[int, str]] = deque()
        self._server: LoopbackServer | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def say(self, text: str) -> None:
        self._replies.append((200, text))

    def take(self, seconds: float) -> None:
        """Answer every request after `seconds` (a real endpoint takes a second or more)."""
        self.latency_s = seconds

    def fail(self, status: int = 500) -> None:
        self._replies.append((status, ""))

    async def __aenter__(self) -> FakeTranscriber:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/audio/transcriptions", self._handle)
        self._server = LoopbackServer(app)
        self.port = await self._server.start()
        return self

    async def __aexit__(self, *exc) -> None:
        if self._server:
            await self._server.stop()

    async def _handle(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if not isinstance(upload, web.FileField) or "model" not in form:
            return web.json_response({"error": {"message": "file and model are required"}}, status=400)
        data = upload.file.read()
        language = form.get("language")
        self.requests.append(
            Heard(
                str(form["model"]),
                str(language) if language is not None else None,
                upload.filename,
                len(data),
                request.headers.get("Authorization", ""),
            )
        )
        status, text = self._replies.popleft() if self._replies else (200, "")
        await asyncio.sleep(self.latency_s)
        if status != 200:
            return web.json_response(
                {"error": {"message": "transcription failed", "type": "server_error"}}, status=status
            )
        return web.json_response({"text": text})
