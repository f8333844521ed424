"""Read-side queries over the stored messages that the window, the summariser and /reset need.

Only user and assistant messages with status "ok" (and "context": group chatter not addressed to
Fuzi, which the engine keeps as context) take part: tool traffic is never stored as chat messages
and refused, cancelled or blocked messages stay out, so the window can never hold half of a tool
call/result pair. All methods are synchronous; callers run them in a worker thread.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, Select, bindparam, delete
from sqlalchemy import select as core_select
from sqlmodel import Session, col, func, select

from core.memory.quotes import load_quotes
from core.storage.models import Message
from core.storage.rows import affected, among, row_id
from core.types import Quote

CONVERSATION_ROLES = ("user", "assistant")
WINDOW_STATUSES = ("ok", "context")


@dataclass(frozen=True)
class Line:
    """One stored conversation message, detached from the database.

    `quoted`: what a question quoted (screened, clipped when it was asked), never the asker's own words.
    """

    id: int
    role: str
    text: str
    speaker: str
    account: str
    trace_id: str
    quoted: tuple[Quote, ...] = ()


def _line(m: Any) -> Line:
    """A `Message`, or a row of `_LINE`'s columns, as a Line."""
    return Line(
        id=row_id(m.id),
        role=m.role,
        text=m.text,
        speaker=m.speaker,
        account=m.account,
        trace_id=m.trace_id,
        quoted=load_quotes(m.quoted),
    )


# The summariser's reads (every fold), built once: their values are bound at execution.
_M = Message.__table__  # type: ignore[attr-defined]
_LINE = core_select(_M.c.id, _M.c.role, _M.c.text, _M.c.speaker, _M.c.account, _M.c.trace_id, _M.c.quoted).where(
    _M.c.chat_key == bindparam("b_chat"),
    _M.c.id > bindparam("b_after"),
    among(_M.c.role, CONVERSATION_ROLES),
    among(_M.c.status, WINDOW_STATUSES),
)
_WINDOW = _LINE.order_by(_M.c.id.desc()).limit(bindparam("b_limit"))
_WINDOW_EXCLUDING = _WINDOW.where(_M.c.trace_id != bindparam("b_exclude"))
_BETWEEN = _LINE.where(_M.c.id < bindparam("b_before")).order_by(_M.c.id).limit(bindparam("b_limit"))


class ChatHistory:
    """Queries over ``core.storage`` messages for one purpose: short-term memory.

    Args:
        engine: the shared SQLAlchemy engine.
    """

    def __init__(self, engine: Engine):
        self._engine = engine

    def window(self, chat_key: str, *, after_id: int, limit: int, exclude_trace: str = "") -> list[Line]:
        """The last ``limit`` conversation messages newer than ``after_id``, oldest first.

        Messages of ``exclude_trace`` (the turn being answered) are left out.
        """
        values = {"b_chat": chat_key, "b_after": after_id, "b_limit": limit, "b_exclude": exclude_trace}
        return self._lines(_WINDOW_EXCLUDING if exclude_trace else _WINDOW, values)[::-1]

    def between(self, chat_key: str, *, after_id: int, before_id: int, limit: int) -> list[Line]:
        """Up to ``limit`` conversation messages with after_id < id < before_id, oldest first."""
        return self._lines(_BETWEEN, {"b_chat": chat_key, "b_after": after_id, "b_before": before_id, "b_limit": limit})

    def _lines(self, query: Select, values: dict[str, Any]) -> list[Line]:
        with self._engine.connect() as c:
            return [_line(row) for row in c.execute(query, values)]

    def user_text(self, chat_key: str, trace_id: str) -> str | None:
        """The user message of ``trace_id`` in this chat (None when none is stored)."""
        query = (
            select(Message.text)
            .where(Message.chat_key == chat_key, Message.role == "user", Message.trace_id == trace_id)
            .order_by(col(Message.id).desc())
            .limit(1)
        )
        with Session(self._engine) as s:
            return s.exec(query).first()

    def last_id(self, chat_key: str) -> int:
        """The id of the chat's newest stored message of any kind (0 when none)."""
        query = select(func.max(Message.id)).where(Message.chat_key == chat_key)
        with Session(self._engine) as s:
            return s.exec(query).one() or 0

    def forget_accounts(self, accounts: Collection[str]) -> tuple[int, list[str]]:
        """Delete what ``accounts`` said (a person's /forget all).

        In chats where only these accounts ever spoke (their private chats) the replies go too; in
        shared chats only their own messages are deleted.

        Returns:
            (messages deleted, keys of the chats touched).
        """
        if not accounts:
            return 0, []
        owned = col(Message.account).in_(list(accounts))
        with Session(self._engine) as s:
            touched = list(s.exec(select(Message.chat_key).where(owned).distinct()))
            shared = select(Message.chat_key).where(
                col(Message.chat_key).in_(touched), Message.role == "user", Message.account != "", ~owned
            )
            shared_keys = set(s.exec(shared.distinct()))
            private_keys = [k for k in touched if k not in shared_keys]
            count = affected(s.execute(delete(Message).where(owned)))
            if private_keys:
                count += affected(s.execute(delete(Message).where(col(Message.chat_key).in_(private_keys))))
            s.commit()
            return count, touched
