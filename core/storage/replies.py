"""A reply's life in the database: recorded as it starts, finished in place, closed after a crash.

The assistant row of a reply is written when the reply starts (status "streaming", no text yet), so
a process killed mid-reply leaves a trace. The adapter may note where the reply is shown (a
:class:`core.shown_in.ShownIn`, kept in the row's ``shown_in`` column; the later messages of a split
answer in `reply_part`). When the reply ends the same
row gets its text, level and final status (and its footnotes). On the next start
:meth:`ReplyRepo.close_interrupted` turns rows still "streaming" into "interrupted", together with
the question they answered, so that the chat window never shows that question as an unanswered
user turn followed by the next one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, or_, update
from sqlmodel import Session, col, select

from core.events import Citation
from core.shown_in import ShownIn
from core.storage import citations as footnotes
from core.storage.base import UPSERT_DIALECTS, _Repo, conflict_insert
from core.storage.guard import fit_values
from core.storage.models import Message, ReplyPart, ReplyStats, utcnow
from core.storage.rows import affected, among, dialect_of, row_id
from core.storage.status import INTERRUPTED, STREAMING

# The statements every reply runs, built once (SQLAlchemy compiles each once per engine and reuses it);
# the columns they SET are the keys of the values they are executed with.
_M = Message.__table__  # type: ignore[attr-defined]
_FINISH = (
    update(_M)
    .where(_M.c.trace_id == bindparam("b_trace"), _M.c.role == "assistant", _M.c.status == STREAMING)
    .returning(_M.c.id)
)
"""The started row, still "streaming", gets its text, level and status."""
_CONFIRM = update(_M).where(
    _M.c.trace_id == bindparam("b_trace"),
    _M.c.role == "assistant",
    among(_M.c.status, [STREAMING, INTERRUPTED]),  # a sweep took it for dead: it was not
)
"""The finished row gets its final status once delivered."""


@dataclass(frozen=True)
class Interrupted:
    """A reply a crash cut short: its chat, trace and, if the adapter said so, where it is shown."""

    chat_key: str
    trace_id: str
    shown_in: ShownIn | None = None

    @property
    def where(self) -> ShownIn:
        """Where to correct it: the message shown, else its chat (the adapter then says so anew)."""
        return self.shown_in or ShownIn.chat_of(self.chat_key)

    @classmethod
    def of(cls, row: Message) -> Interrupted:
        """The row's reply; a malformed stored reference counts as nothing shown."""
        try:
            shown = ShownIn.parse(row.shown_in) if row.shown_in else None
        except ValueError:
            shown = None
        return cls(row.chat_key, row.trace_id, shown)


_COLUMNS = tuple(c.name for c in _M.columns if c.name != "id")
_WITH_REPLY = insert(_M).returning(_M.c.id)
"""A question and its reply's started row: executed with both rows' values, it is one INSERT of two
rows on SQLite and PostgreSQL (SQLAlchemy's "insertmanyvalues"; a multi-row `values()` is compiled anew
every time)."""


def with_reply(c: Connection, question: dict[str, Any]) -> int:
    """Store a question (chat_key, role, text, person_id, account, speaker, level, status, trace_id,
    quoted) with its reply's started row (no text yet, "streaming"), one INSERT; the question's id."""
    asked = fit_values(_M, {**question, "created_at": utcnow(), "heartbeat_at": None, "shown_in": None})
    reply = dict.fromkeys(_COLUMNS, None) | {"chat_key": asked["chat_key"], "trace_id": asked["trace_id"]}
    reply |= {"account": "", "speaker": "", "role": "assistant", "text": "", "status": STREAMING}
    reply["created_at"] = asked["created_at"]
    ids = c.execute(_WITH_REPLY, [asked, reply]).scalars().all()
    return row_id(min(ids))  # the rows are inserted in order: the question's id is the smaller


class ReplyRepo(_Repo):
    """The assistant row of each reply, from start to finish (see the module docstring)."""

    async def shown_in(self, trace_id: str, where: ShownIn, part: int | None = None) -> bool:
        """Note where the reply is shown: its own message (``part`` None, the row's ``shown_in``: a
        crash repair edits it), or message ``part`` of the answer (0 the first), which only maps
        reactions back (`reply_part`: the later messages of a split answer, every message of one a
        restarted process cannot edit). A reaction on any of them finds the reply
        (core/storage/feedback.py). A reply already finished is noted too.

        Returns False when its own message was noted before the reply's row was written (nothing
        was noted: the adapter notes it again later, `adapters/common/lifecycle.py`).
        """
        key = where.stored()

        def note(s: Session) -> bool:
            if part is not None:
                _keep_part(s, key, trace_id, part)
                s.commit()
                return True
            mine = (col(Message.trace_id) == trace_id, col(Message.role) == "assistant")
            found = affected(s.execute(update(Message).where(*mine).values(shown_in=key))) > 0
            s.commit()
            return found

        return await self._run(note)

    async def finish(
        self,
        chat_key: str,
        trace_id: str,
        text: str,
        level: int | None,
        status: str,
        citations: Sequence[Citation] = (),
        *,
        stats: ReplyStats | None = None,
        then: Callable[[], None] | None = None,
    ) -> int:
        """Give the started row its text, level and status (and its footnotes and its figures for the
        operator console, `reply_stats`, in the same transaction: core/storage/citations.py,
        core/storage/operators.py); insert the row when none was started. `then` (a blocking call
        that never raises: the person's usage) runs in the same worker thread once it is stored.

        A row another process closed as "interrupted" while this reply was still running (two
        processes on one SQLite file, e.g. `fuzi chat` beside the bot) is revived, question included.
        """

        values = {"b_trace": trace_id, "text": text, "level": level, "status": status}

        def store(s: Session) -> int:  # the general case (any dialect, a revived or missing row)
            done = s.execute(_FINISH, values).first()
            kept = done[0] if done is not None else _revived(s, chat_key, trace_id, text, level, status)
            if citations:
                footnotes.keep(s, chat_key, trace_id, citations)
            if stats is not None:
                _keep_stats(s, stats)
            s.commit()
            return kept

        def ordinary(c: Connection) -> int | None:  # one UPDATE (and the upserts) on a bare connection
            done = c.execute(_FINISH, values).first()
            if done is None:
                return None  # nothing written: the general case below
            if citations:
                footnotes.keep(c, chat_key, trace_id, citations)
            if stats is not None:
                _keep_stats(c, stats)
            return int(done[0])

        def run() -> int:
            kept = self._in_transaction(ordinary) if self._engine.dialect.name in UPSERT_DIALECTS else None
            if kept is None:
                kept = self._in_session(store)
            if then is not None:
                then()
            return kept

        return await asyncio.to_thread(run)

    async def heartbeat(self, trace_ids: Collection[str]) -> int:
        """Note that this process is still running these replies (their rows are not stale)."""
        if not trace_ids:
            return 0

        def beat(s: Session) -> int:
            count = affected(
                s.execute(
                    update(Message)
                    .where(
                        col(Message.trace_id).in_(list(trace_ids)),
                        col(Message.role) == "assistant",
                        col(Message.status) == STREAMING,
                    )
                    .values(heartbeat_at=utcnow())
                )
            )
            s.commit()
            return count

        return await self._run(beat)

    async def confirm(self, trace_id: str, status: str) -> int:
        """The final text reached the person: the finished row gets its final status ("ok", "blocked")."""

        values = {"b_trace": trace_id, "status": status}
        return await self._run_core(lambda c: affected(c.execute(_CONFIRM, values)))

    async def close_stale(self, silent_since: datetime, platforms: Collection[str]) -> list[Interrupted]:
        """Close the replies on `platforms` whose owner stopped renewing them before `silent_since`
        (it died): each row is claimed by one process only (a conditional UPDATE), with its question."""
        if not platforms:
            return []

        def close(s: Session) -> list[Interrupted]:
            last_seen = func.coalesce(Message.heartbeat_at, Message.created_at)
            on_platforms = or_(*(col(Message.chat_key).startswith(f"{p}:") for p in platforms))
            stale = select(Message).where(
                col(Message.role) == "assistant", col(Message.status) == STREAMING, last_seen < silent_since
            )
            rows = list(s.exec(stale.where(on_platforms)))
            claimed = [r for r in rows if _claim(s, r.id)]
            _close_questions(s, [r.trace_id for r in claimed if r.trace_id])
            s.commit()
            return [Interrupted.of(r) for r in claimed]

        return await self._run(close)

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
            found = [Interrupted.of(r) for r in rows]
            if rows:
                s.execute(update(Message).where(col(Message.id).in_([r.id for r in rows])).values(status=INTERRUPTED))
            _close_questions(s, traces)
            s.commit()
            return found

        return await self._run(close)


def _keep_part(s: Session, key: str, trace_id: str, part: int) -> None:
    """Map platform message ``key`` to reply ``trace_id`` (one statement on SQLite and PostgreSQL)."""
    dialect = s.get_bind().dialect.name
    if dialect not in UPSERT_DIALECTS:
        s.merge(ReplyPart(shown_in=key, trace_id=trace_id, part=part))
        return
    statement = conflict_insert(dialect)(ReplyPart).values(shown_in=key, trace_id=trace_id, part=part)
    s.execute(statement.on_conflict_do_update(index_elements=["shown_in"], set_={"trace_id": trace_id, "part": part}))


def _keep_stats(s: Session | Connection, stats: ReplyStats) -> None:
    """The answer's figures (`reply_stats`), one INSERT; a second finish of the same trace keeps the first."""
    dialect = dialect_of(s)
    if dialect not in UPSERT_DIALECTS:
        if not isinstance(s, Session):
            raise TypeError(f"reply figures on {dialect} are kept through a session")
        s.merge(stats)
        return
    values = {c.name: getattr(stats, c.name) for c in ReplyStats.__table__.columns}  # type: ignore[attr-defined]
    s.execute(_stats_insert(dialect), values)


@cache
def _stats_insert(dialect: str) -> Any:
    """INSERT … ON CONFLICT (trace_id) DO NOTHING of an answer's figures, its values bound at execution."""
    table = ReplyStats.__table__  # type: ignore[attr-defined]
    return conflict_insert(dialect)(table).on_conflict_do_nothing(index_elements=["trace_id"])


def _claim(s: Session, row_id: int | None) -> bool:
    """Mark one stale row interrupted unless another process got there first."""
    stale = col(Message.status) == STREAMING
    return affected(s.execute(update(Message).where(col(Message.id) == row_id, stale).values(status=INTERRUPTED))) == 1


def _close_questions(s: Session, traces: list[str]) -> None:
    if traces:
        s.execute(
            update(Message)
            .where(col(Message.role) == "user", col(Message.status) == "ok", col(Message.trace_id).in_(traces))
            .values(status=INTERRUPTED)
        )


def _revived(s: Session, chat_key: str, trace_id: str, text: str, level: int | None, status: str) -> int:
    """`finish` for a reply whose row is not "streaming": closed as interrupted meanwhile (revived,
    question included) or never started (inserted)."""
    row = s.exec(_started(trace_id)).first()
    if row is not None and row.status == INTERRUPTED:
        s.execute(
            update(Message)
            .where(col(Message.role) == "user", col(Message.trace_id) == trace_id, col(Message.status) == INTERRUPTED)
            .values(status="ok")
        )
    if row is None:
        row = Message(chat_key=chat_key, role="assistant", text="", trace_id=trace_id)
    row.text, row.level, row.status = text, level, status
    s.add(row)
    s.flush()
    return row_id(row.id)


def _started(trace_id: str):
    return select(Message).where(
        col(Message.trace_id) == trace_id,
        col(Message.role) == "assistant",
        col(Message.status).in_([STREAMING, INTERRUPTED]),
    )
