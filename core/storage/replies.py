"""A reply's life in the database: recorded as it starts, finished in place, closed after a crash.

The assistant row of a reply is written when the reply starts (status "streaming", no text yet), so
a process killed mid-reply leaves a trace. The adapter may note where the reply is shown
(`shown_in`: ``telegram:<chat_id>:<message_id>``, kept in the row's ``account`` field, which is
empty for assistant rows; a dedicated column is the clean form once migrations exist). When the
reply ends the same row gets its text, level and final status. On the next start
:meth:`ReplyRepo.close_interrupted` turns rows still "streaming" into "interrupted", together with
the question they answered, so that the chat window never shows that question as an unanswered
user turn followed by the next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from core.storage.models import Message
from core.storage.repos import _Repo

STREAMING = "streaming"
INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class Interrupted:
    """A reply a crash cut short: its chat, trace and, if the adapter said so, where it is shown."""

    chat_key: str
    trace_id: str
    shown_in: str


class ReplyRepo(_Repo):
    """The assistant row of each reply, from start to finish (see the module docstring)."""

    async def start(self, chat_key: str, trace_id: str) -> int:
        """Record that a reply started (status "streaming")."""

        def store(s: Session) -> int:
            row = Message(chat_key=chat_key, role="assistant", text="", status=STREAMING, trace_id=trace_id)
            s.add(row)
            s.commit()
            return row.id

        return await self._run(store)

    async def shown_in(self, trace_id: str, where: str) -> None:
        """Note where the running reply is shown (the platform message), for closing it after a crash."""
        await self._update(trace_id, STREAMING, account=where[:200])

    async def finish(self, chat_key: str, trace_id: str, text: str, level: int | None, status: str) -> int:
        """Give the started row its text, level and status; insert the row when none was started.

        A row another process closed as "interrupted" while this reply was still running (two
        processes on one SQLite file, e.g. `fuzi chat` beside the bot) is revived, question included.
        """

        def store(s: Session) -> int:
            row = s.exec(_started(trace_id)).first()
            if row is not None and row.status == INTERRUPTED:
                s.execute(
                    update(Message)
                    .where(
                        col(Message.role) == "user",
                        col(Message.trace_id) == trace_id,
                        col(Message.status) == INTERRUPTED,
                    )
                    .values(status="ok")
                )
            if row is None:
                row = Message(chat_key=chat_key, role="assistant", text="", trace_id=trace_id)
            row.text, row.level, row.status = text, level, status
            s.add(row)
            s.commit()
            return row.id

        return await self._run(store)

    async def discard(self, trace_id: str) -> None:
        """Remove a started row that never got an answer (a config error, an unexpected failure)."""

        def remove(s: Session) -> None:
            s.execute(delete(Message).where(col(Message.trace_id) == trace_id, col(Message.status) == STREAMING))
            s.commit()

        await self._run(remove)

    async def close_interrupted(self, started_before: datetime | None = None) -> list[Interrupted]:
        """Mark replies still "streaming" (started before `started_before`, if given) and their
        questions "interrupted"; return them so adapters can correct what the chat shows."""

        def close(s: Session) -> list[Interrupted]:
            query = select(Message).where(col(Message.role) == "assistant", col(Message.status) == STREAMING)
            if started_before is not None:
                query = query.where(col(Message.created_at) < started_before)
            rows = list(s.exec(query))
            traces = [r.trace_id for r in rows if r.trace_id]
            found = [Interrupted(r.chat_key, r.trace_id, r.account) for r in rows]
            if rows:
                s.execute(update(Message).where(col(Message.id).in_([r.id for r in rows])).values(status=INTERRUPTED))
            if traces:
                s.execute(
                    update(Message)
                    .where(col(Message.role) == "user", col(Message.status) == "ok", col(Message.trace_id).in_(traces))
                    .values(status=INTERRUPTED)
                )
            s.commit()
            return found

        return await self._run(close)

    async def _update(self, trace_id: str, status: str, **values: object) -> None:
        def change(s: Session) -> None:
            s.execute(
                update(Message)
                .where(
                    col(Message.trace_id) == trace_id, col(Message.role) == "assistant", col(Message.status) == status
                )
                .values(**values)
            )
            s.commit()

        await self._run(change)


def _started(trace_id: str):
    return select(Message).where(
        col(Message.trace_id) == trace_id,
        col(Message.role) == "assistant",
        col(Message.status).in_([STREAMING, INTERRUPTED]),
    )
