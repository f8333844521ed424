"""The chats of one web person as a client lists them, and bearer-token revocations.

A web chat's key is ``web:<user>/<chat>`` (adapters/web/handlers.py). The list shows the chats that
hold a message or a title, newest first; a chat's title is the one the person gave it or, until
then, its first question (stored the first time the list is read, so it stays put). Deleting a chat
forgets its messages, its summary, its title and its footnotes; the person's long-term memory
(facts, profile) is not the chat's and stays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import column, delete, table
from sqlmodel import Session, col, func, select

from core.storage import citations as footnotes
from core.storage.base import _Repo
from core.storage.citations import Footnote
from core.storage.models import Chat, ChatTitle, Message, ReplyCitations, TokenRevocation, utcnow
from core.storage.rows import affected

TITLE_CHARS = 40
"""A title made from the first question keeps this many characters (and an ellipsis when cut)."""
MEMORY_CHAT = table("memory_chat", column("chat_key"))
"""The chat's summary (core.memory.models.ChatMemory), by name: memory's models import storage's."""
HISTORY_STATUSES = frozenset({"streaming"})
"""Assistant rows left out of a history: a reply still being written has no text yet."""


@dataclass(frozen=True)
class ChatEntry:
    """One chat in a person's list."""

    chat: str
    title: str
    updated_at: datetime


@dataclass(frozen=True)
class HistoryLine:
    """One message of a chat as a client shows it again."""

    id: int
    role: str
    text: str
    citations: list[Footnote]
    created_at: datetime
    status: str


def aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without a zone; every stored one is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def title_from(question: str) -> str:
    """The first line of a question, cut to TITLE_CHARS."""
    line = " ".join(question.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


class ChatLog(_Repo):
    """List, read, rename and delete the chats whose keys start with a prefix (``web:<user>/``).

    Args:
        engine / lock: as for every repository.
        forget: called with a chat's key once it was deleted (drops what the process cached of it).
    """

    def __init__(self, engine, lock=None, *, forget: Callable[[str], None] = lambda key: None):
        super().__init__(engine, lock)
        self._forget = forget

    async def chats(self, prefix: str, limit: int = 200) -> list[ChatEntry]:
        """The chats under ``prefix`` that hold a message or a title, newest first."""
        return await self._run(lambda s: self._chats(s, prefix, limit))

    def _chats(self, s: Session, prefix: str, limit: int) -> list[ChatEntry]:
        under = col(Message.chat_key).startswith(prefix, autoescape=True)
        last = dict(
            s.exec(select(Message.chat_key, func.max(Message.created_at)).where(under).group_by(Message.chat_key)).all()
        )
        titles = {
            t.chat_key: t
            for t in s.exec(select(ChatTitle).where(col(ChatTitle.chat_key).startswith(prefix, autoescape=True)))
        }
        entries = []
        for key in set(last) | set(titles):
            title = titles.get(key) or self._first_title(s, key)
            moments = [aware(m) for m in (last.get(key), title.updated_at if title else None) if m is not None]
            entries.append(ChatEntry(key[len(prefix) :], title.title if title else "", max(moments)))
        s.commit()
        return sorted(entries, key=lambda e: e.updated_at, reverse=True)[:limit]

    def _first_title(self, s: Session, chat_key: str) -> ChatTitle | None:
        query = select(Message).where(Message.chat_key == chat_key, Message.role == "user").order_by(col(Message.id))
        first = s.exec(query.limit(1)).first()
        if first is None or not first.text.strip():
            return None
        row = ChatTitle(chat_key=chat_key, title=title_from(first.text), updated_at=first.created_at)
        s.merge(row)
        return row

    async def messages(self, chat_key: str, *, before: int | None = None, limit: int = 50) -> list[HistoryLine]:
        """Up to ``limit`` messages older than id ``before`` (None: the newest), oldest first."""

        def read(s: Session) -> list[HistoryLine]:
            query = select(Message).where(
                Message.chat_key == chat_key,
                col(Message.role).in_(("user", "assistant")),
                col(Message.status).not_in(HISTORY_STATUSES),
            )
            if before is not None:
                query = query.where(col(Message.id) < before)
            rows = list(s.exec(query.order_by(col(Message.id).desc()).limit(limit)))[::-1]
            traces = [r.trace_id for r in rows if r.role == "assistant" and r.trace_id]
            cited = footnotes.of(s, traces)
            return [_line(r, cited.get(r.trace_id, []) if r.role == "assistant" else []) for r in rows]

        return await self._run(read)

    async def has(self, chat_key: str) -> bool:
        """True while the chat holds a message or a title (what makes it listed)."""
        return await self._run(lambda s: _exists(s, chat_key))

    async def rename(self, chat_key: str, title: str) -> bool:
        """Give an existing chat a title (it moves to the top of the list); False, and nothing
        stored, for a chat that holds neither a message nor a title (a deleted one stays deleted)."""

        def store(s: Session) -> bool:
            if not _exists(s, chat_key):
                return False
            s.merge(ChatTitle(chat_key=chat_key, title=title[:200], updated_at=utcnow()))
            s.commit()
            return True

        return await self._run(store)

    async def delete(self, chat_key: str) -> int:
        """Forget the chat's messages, summary, title, footnotes and settings; returns the messages deleted."""

        def remove(s: Session) -> int:
            count = affected(s.execute(delete(Message).where(col(Message.chat_key) == chat_key)))
            for rows, key in (
                (MEMORY_CHAT, MEMORY_CHAT.c.chat_key),
                (ChatTitle, col(ChatTitle.chat_key)),
                (ReplyCitations, col(ReplyCitations.chat_key)),
                (Chat, col(Chat.key)),
            ):
                s.execute(delete(rows).where(key == chat_key))
            s.commit()
            return count

        count = await self._run(remove)
        self._forget(chat_key)
        return count


def _exists(s: Session, chat_key: str) -> bool:
    if s.get(ChatTitle, chat_key) is not None:
        return True
    return s.exec(select(Message.id).where(Message.chat_key == chat_key).limit(1)).first() is not None


def _line(row: Message, citations: list[Footnote]) -> HistoryLine:
    return HistoryLine(
        id=row.id or 0,
        role=row.role,
        text=row.text,
        citations=citations,
        created_at=aware(row.created_at),
        status=row.status,
    )


class TokenRevocations(_Repo):
    """One row per web person: tokens issued before ``revoked_at`` no longer work, in every process."""

    async def revoke(self, user: str) -> datetime:
        """Stop every token of ``user`` issued before now; returns that moment."""
        moment = utcnow()

        def store(s: Session) -> None:
            s.merge(TokenRevocation(user=user, revoked_at=moment))
            s.commit()

        await self._run(store)
        return moment

    async def revoked_at(self, user: str) -> float | None:
        """The POSIX time before which ``user``'s tokens are void, or None."""
        row = await self._run(lambda s: s.get(TokenRevocation, user))
        return aware(row.revoked_at).timestamp() if row is not None else None
