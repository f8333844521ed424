"""FUZI_LLM_VISION: the photo also goes to a vision-capable model, beside the text OCR read from it.

`VisionContext` wraps the `ContextBuilder` port: when the turn carries photos (`Incoming.images`,
set by the media intake after OCR), the current user message becomes the OpenAI content-parts form —
the text, then each photo as a JPEG data URL. History, memory and storage stay text; a model
without vision must not be configured with it (the endpoint would refuse the request).
"""

from __future__ import annotations

import base64

from core.llm.types import Message
from core.ports import ContextBuilder, Turn


def image_parts(text: str, images: tuple[bytes, ...]) -> list[dict]:
    """`[{"type": "text"}, {"type": "image_url"} …]` for one user message."""
    parts: list[dict] = [{"type": "text", "text": text}]
    for jpeg in images:
        url = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


class VisionContext:
    """A `ContextBuilder` that adds the turn's photos to the current user message."""

    def __init__(self, inner: ContextBuilder) -> None:
        self._inner = inner

    async def build(self, turn: Turn, system_prompt: str) -> list[Message]:
        messages = await self._inner.build(turn, system_prompt)
        images = turn.incoming.images
        if not images or not messages or messages[-1].get("role") != "user":
            return messages
        last = dict(messages[-1])
        text = last.get("content")
        last["content"] = image_parts(text if isinstance(text, str) else "", images)
        return [*messages[:-1], last]

    async def after_reply(self, turn: Turn, reply_text: str) -> None:
        await self._inner.after_reply(turn, reply_text)
