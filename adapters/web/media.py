"""The chat API's photo upload and feedback buttons (docs/web.md).

``POST /v1/chat/image?chat=main&caption=…`` takes the image itself as the body (``Content-Type:
image/jpeg``, ``image/png`` …, at most `MAX_IMAGE_BYTES`) and streams the reply as SSE, exactly like
``POST /v1/chat``: the photo is read by the engine's OCR and answered with citations, or a one-line
notice says why not. ``POST /v1/feedback`` records 👍/👎 on one of the caller's own answers, named by the
``X-Trace-Id`` its stream came with.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Query, Request, Response
from pydantic import BaseModel, Field

from adapters.web.errors import CHANGE, errors
from adapters.web.handlers import CHAT_PATTERN, DEFAULT_CHAT, WebHandlers
from adapters.web.sse import MEDIA_TYPE, EventStreamResponse
from core.types import Media

MAX_IMAGE_BYTES = 10 * 1024 * 1024
IMAGE_PATH = "/v1/chat/image"


class FeedbackRequest(BaseModel):
    trace_id: str = Field(min_length=1, max_length=64, description="the X-Trace-Id of the answer's stream")
    verdict: Literal["up", "down", "none"] = Field(description='"none" takes an earlier verdict back')


class FeedbackOut(BaseModel):
    outcome: Literal["up", "down", "cleared", "ignored"] = Field(
        description='the verdict stored, "cleared" (taken back), or "ignored": "none" with nothing to take back'
    )


IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/gif", "image/bmp", "image/tiff")
"""Declared in the OpenAPI document; any ``image/…`` is taken (the engine says what it cannot read)."""
_IMAGE_BODY = {
    "required": True,
    "description": f"the image itself, at most {MAX_IMAGE_BYTES} bytes (larger: 413)",
    "content": {kind: {"schema": {"type": "string", "format": "binary"}} for kind in IMAGE_TYPES},
}


def add_media_routes(app: FastAPI, h: WebHandlers, user: Any) -> None:
    """Register the upload and feedback routes on `app` (``user``: the bearer dependency; the body
    limit of IMAGE_PATH is raised in create_app's Hardening)."""

    @app.post(
        IMAGE_PATH,
        response_class=Response,
        tags=["chat"],
        openapi_extra={"requestBody": _IMAGE_BODY},
        responses={
            **errors(*CHANGE, 415, 422),
            200: {"content": {MEDIA_TYPE: {}}, "description": "the same events as POST /v1/chat"},
        },
    )
    async def image(
        request: Request,
        chat: str = Query(DEFAULT_CHAT, pattern=CHAT_PATTERN, max_length=32),
        caption: str = Query("", max_length=1000, description="the question about the photo"),
        who: str = user,
    ):
        """Send a photo of a page (the raw image as the body); the reply streams back as SSE."""
        kind = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
        if not kind.startswith("image/"):
            raise HTTPException(415, "send the image itself as the body, with Content-Type image/…")
        data = await request.body()
        if not data:
            raise HTTPException(422, "the body is empty: send the image itself")

        async def fetch() -> bytes:
            return data

        media = Media("image", fetch, size=len(data), mime=kind)
        incoming = replace(h._incoming(who, chat, caption), media=(media,))
        return EventStreamResponse(
            h._frames([incoming]), headers={"X-Trace-Id": incoming.trace_id}, heartbeat_s=h.heartbeat_s
        )

    @app.post("/v1/feedback", response_model=FeedbackOut, tags=["chat"], responses=errors(*CHANGE, 404, 422))
    async def feedback(body: FeedbackRequest, who: str = user):
        """👍/👎 on one of your answers; 404 when the trace is not an answer of yours."""
        reaction = "" if body.verdict == "none" else body.verdict
        outcome = await h.engine.record_feedback("web", f"web:{who}", reaction, trace_id=body.trace_id)
        if outcome == "ignored" and body.verdict != "none":
            raise HTTPException(404, "no answer of yours has this trace id")
        return FeedbackOut(outcome=outcome)
