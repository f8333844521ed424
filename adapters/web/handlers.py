"""HTTP handlers: requests become `Incoming` (platform "web", the token's subject as the user), the
engine's events become SSE or JSON. No decisions here: limits, busy, commands are the engine's.

Chats: a web person has any number of chats, named by the client (``chat``, default ``main``); the
engine sees ``chat_id = "<user>/<chat>"``, so one person can never write into another's chat.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import Annotated, Any, Protocol

import structlog
from fastapi import HTTPException, Request
from pydantic import AfterValidator, BaseModel, Field, WithJsonSchema, create_model

from adapters.web.auth import Authenticator, Unauthorized
from adapters.web.chats import CHAT_PATTERN
from adapters.web.sse import EventStreamResponse, frame, sse_event
from core.events import Notice
from core.logging import bind_trace
from core.ports import Engine
from core.types import Incoming, parse_command

log = structlog.get_logger(__name__)

DEFAULT_CHAT = "main"


class Passages(Protocol):
    """Looks a passage up by id (``lunyu:3.22``); the result has ``id``, ``ref`` and ``text``."""

    async def get(self, passage_id: str) -> Any | None: ...


MESSAGE_MAX_CHARS = 5000
"""The API's bound on a message: even escaped as JSON (at most 12 bytes a character: two ``\\u``
escapes outside the BMP) it fits the default 64 KiB body limit. The engine's own input limit (4000
by default, a `too_long` notice) applies below it."""


class ChatRequest(BaseModel):
    """One message to Fuzi. A message starting with ``/`` is a command (``/memories``, ``/remember …``)."""

    message: str = Field(max_length=MESSAGE_MAX_CHARS, description="what the person says (or a /command)")
    chat: str | None = Field(
        None, pattern=CHAT_PATTERN, max_length=32, description="which of the person's chats (default: main)"
    )
    skill: str | None = Field(None, max_length=32, description="switch the chat to this skill first (see /v1/skills)")


def chat_request(skills: Sequence[str]) -> type[ChatRequest]:
    """`ChatRequest` whose ``skill`` is one of ``skills`` (the engine's, known once the app is built):
    declared as an enum in the OpenAPI document, anything else is 422."""
    names = list(skills)

    def known(name: str | None) -> str | None:
        if name is not None and name not in names:
            raise ValueError(f"unknown skill; one of {', '.join(names)} (GET /v1/skills)")
        return name

    declared = {
        "anyOf": [{"type": "string", "enum": names}, {"type": "null"}],
        "default": None,
        "description": "switch the chat to this skill first (see /v1/skills)",
    }
    skill = Annotated[str | None, AfterValidator(known), WithJsonSchema(declared)]
    return create_model("ChatRequest", __base__=ChatRequest, skill=(skill, None))


class CancelRequest(BaseModel):
    chat: str | None = Field(None, pattern=CHAT_PATTERN, max_length=32)


class NoticeOut(BaseModel):
    reason: str
    text: str
    trace_id: str
    extra: dict = Field(default_factory=dict)


class PassageOut(BaseModel):
    id: str
    ref: str
    text: str


class SkillOut(BaseModel):
    name: str
    display: str


class SkillsOut(BaseModel):
    skills: list[SkillOut]
    current: str | None = None


class MeOut(BaseModel):
    user: str
    auth: str


class WebHandlers:
    """The route functions, bound to one engine.

    Args:
        engine: the chat engine (possibly wrapped for metrics).
        passages: passage lookup for footnotes.
        auth: JWT or local authenticator.
        heartbeat_s: an idle event stream gets an SSE comment this often.
    """

    def __init__(
        self,
        engine: Engine,
        passages: Passages,
        auth: Authenticator,
        *,
        heartbeat_s: float = 15.0,
    ):
        self.engine, self.passages, self.auth, self.heartbeat_s = engine, passages, auth, heartbeat_s

    # ------------------------------------------------------------------ auth
    async def user(self, request: Request) -> str:
        """FastAPI dependency: the caller's user id, or 401."""
        try:
            return await self.auth.authenticate(request.headers.get("authorization"))
        except Unauthorized as exc:
            raise HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"}) from None

    # ------------------------------------------------------------------ routes
    async def chat(self, body: ChatRequest, user: str) -> EventStreamResponse:
        """Stream the reply as SSE; a ``skill`` is switched first (its notice is the first event)."""
        chat = body.chat or DEFAULT_CHAT
        first: list[Incoming] = []
        if body.skill is not None:  # a known one: `chat_request` checked it
            first.append(self._incoming(user, chat, body.skill, command="skill"))
        command, args = parse_command(body.message)
        message = self._incoming(user, chat, args if command else body.message, command=command)
        return EventStreamResponse(
            self._frames([*first, message]), headers={"X-Trace-Id": message.trace_id}, heartbeat_s=self.heartbeat_s
        )

    async def cancel(self, body: CancelRequest | None, user: str) -> NoticeOut:
        """Stop the person's running reply (from any chat); the stopped stream simply ends."""
        notice = await self._command(user, (body.chat if body else None) or DEFAULT_CHAT, "cancel", "")
        return NoticeOut(reason=notice.reason, text=notice.text, trace_id=notice.trace_id, extra=dict(notice.extra))

    async def skills(self, user: str, chat: str | None = None) -> SkillsOut:
        """Every skill, and the one the chat is in (the route checked ``chat`` against CHAT_PATTERN)."""
        notice = await self._command(user, chat or DEFAULT_CHAT, "skill", "")
        choices = [SkillOut(name=n, display=d) for n, d in self.engine.skills()]
        return SkillsOut(skills=choices, current=notice.extra.get("current"))

    async def passage(self, passage_id: str, user: str) -> PassageOut:
        """The full text a footnote points to."""
        found = await self.passages.get(passage_id)
        if found is None:
            raise HTTPException(404, "no such passage")
        return PassageOut(id=found.id, ref=found.ref, text=found.text)

    async def me(self, user: str) -> MeOut:
        return MeOut(user=user, auth=type(self.auth).__name__.removesuffix("Auth").lower())

    # ------------------------------------------------------------------ helpers
    def _incoming(self, user: str, chat: str, text: str, *, command: str | None = None) -> Incoming:
        return Incoming(
            platform="web",
            user_id=user,
            chat_id=f"{user}/{chat}",
            text=text,
            user_name=user,
            is_group=False,
            addressed=True,
            command=command,
        )

    async def _frames(self, incomings: list[Incoming]) -> AsyncGenerator[bytes, None]:
        for incoming in incomings:
            with bind_trace(incoming):
                log.info("web_incoming", command=incoming.command)
                async with aclosing(self.engine.handle(incoming)) as events:
                    async for event in events:  # the engine stores a reply's footnotes with its text
                        yield frame(*sse_event(event))

    async def _command(self, user: str, chat: str, command: str, args: str) -> Notice:
        incoming = self._incoming(user, chat, args, command=command)
        notice = None
        with bind_trace(incoming):
            async with aclosing(self.engine.handle(incoming)) as events:
                async for event in events:
                    notice = event if isinstance(event, Notice) else notice
        if notice is None:
            raise HTTPException(500, "no answer")
        return notice
