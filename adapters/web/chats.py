"""The web person's chats: list, history, rename, delete (DESIGN.md, "Chats of the web person").

The store behind them is a port (core.storage.chatlog.ChatLog implements it); a person only ever
sees keys under ``web:<user>/``, so nobody reads or deletes another person's chat. A chat exists
while it holds a message or a title: reading or renaming one that does not (never written to, or
deleted) is 404, so a deleted chat stays deleted; deleting is idempotent.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, Protocol

from fastapi import HTTPException
from pydantic import BaseModel, Field

CHAT_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
PAGE_MAX = 200


class ChatStore(Protocol):
    """Reads and changes the stored chats (see core/storage/chatlog.py)."""

    async def chats(self, prefix: str, limit: int = 200) -> Sequence[Any]: ...

    async def messages(self, chat_key: str, *, before: int | None = None, limit: int = 50) -> Sequence[Any]: ...

    async def has(self, chat_key: str) -> bool: ...

    async def rename(self, chat_key: str, title: str) -> bool: ...

    async def delete(self, chat_key: str) -> int: ...


class ChatOut(BaseModel):
    chat: str
    title: str = Field(description="the person's title, else the first question; empty for a chat without one")
    updated_at: datetime


class ChatsOut(BaseModel):
    chats: list[ChatOut] = Field(description="newest first")


class CitationOut(BaseModel):
    n: int
    id: str
    ref: str


class MessageOut(BaseModel):
    id: int = Field(description="pass as `before` to page back")
    role: Literal["user", "assistant"]
    text: str
    citations: list[CitationOut]
    created_at: datetime
    status: str = Field(description="ok, or why it got no answer (busy, rate_limited …) / cancelled, blocked")


class MessagesOut(BaseModel):
    messages: list[MessageOut] = Field(description="oldest first")


class TitleIn(BaseModel):
    title: str = Field(min_length=1, max_length=200)


class DeletedOut(BaseModel):
    chat: str
    deleted_messages: int


def chat_key(user: str, chat: str) -> str:
    """The engine's key of a web chat (platform ``web``, chat id ``<user>/<chat>``)."""
    return f"web:{user}/{chat}"


class ChatRoutes:
    """The four routes over one store."""

    def __init__(self, store: ChatStore):
        self.store = store

    async def list(self, user: str) -> ChatsOut:
        entries = await self.store.chats(chat_key(user, ""))
        return ChatsOut(chats=[ChatOut(chat=e.chat, title=e.title, updated_at=e.updated_at) for e in entries])

    async def messages(self, user: str, chat: str, before: int | None, limit: int) -> MessagesOut:
        if not await self.store.has(chat_key(user, chat)):
            raise HTTPException(404, "no such chat")
        lines = await self.store.messages(chat_key(user, chat), before=before, limit=limit)
        return MessagesOut(
            messages=[
                MessageOut(
                    id=m.id,
                    role=m.role,
                    text=m.text,
                    citations=[CitationOut(**c) for c in m.citations],
                    created_at=m.created_at,
                    status=m.status,
                )
                for m in lines
            ]
        )

    async def rename(self, user: str, chat: str, body: TitleIn) -> ChatOut:
        title = " ".join(body.title.split())
        if not title:
            raise HTTPException(422, "title: some text, please")
        if not await self.store.rename(chat_key(user, chat), title):
            raise HTTPException(404, "no such chat")
        entry = next((e for e in await self.store.chats(chat_key(user, "")) if e.chat == chat), None)
        if entry is None:
            raise HTTPException(404, "no such chat")
        return ChatOut(chat=chat, title=entry.title, updated_at=entry.updated_at)

    async def delete(self, user: str, chat: str) -> DeletedOut:
        return DeletedOut(chat=chat, deleted_messages=await self.store.delete(chat_key(user, chat)))
