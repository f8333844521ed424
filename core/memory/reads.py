"""What memory reads for one turn, in one statement: the chat's summary state, its window, the
person's facts and profile (with its mark and the exchanges waiting for the profile's next batch).

The four reads are one `UNION ALL` of rows of one shape (a kind letter, two numbers, seven texts and
a time), so a turn's context costs one round trip on SQLite and PostgreSQL alike. The result
(`TurnReads`) is kept for the turn's background work (core/memory/context.py `after_reply`), which
then decides whether to fold and extracts the profile's batch without reading again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import DateTime, Engine, Integer, String, Text, bindparam, cast, func, literal, null, union_all
from sqlmodel import col, select

from core.memory.history import CONVERSATION_ROLES, WINDOW_STATUSES, Line
from core.memory.models import ChatMemory, Fact, Profile
from core.memory.profile import Batch, Exchange, unextracted
from core.memory.quotes import load_quotes
from core.memory.summary import ChatState
from core.storage.models import Message
from core.storage.rows import among


@dataclass(frozen=True)
class TurnReads:
    """One turn's memory as read before its reply.

    Attributes:
        state: the chat's summary and marks.
        lines: the window, oldest first (the turn's own messages left out).
        facts: the person's facts usable in this chat, oldest first (full rows: vectors included).
        profile: the stored profile as its JSON text ("" when the person has none).
        unextracted: the profile as `profile`, its mark and the person's first exchanges (any chat)
            after it, this turn's question included: the profile extraction's next batch.
    """

    state: ChatState
    lines: list[Line]
    facts: list[Fact]
    profile: str
    unextracted: Batch = field(default_factory=lambda: Batch("", 0, []))

    @property
    def unfolded(self) -> list[Line]:
        """The lines not yet in the summary: the window and the overflow waiting for its batch."""
        upto = self.state.summarized_upto
        return [line for line in self.lines if line.id > upto]


def _row(kind: str, n1: Any = None, n2: Any = None, *texts: Any, at: Any = None) -> list[Any]:
    """One member's columns: kind, n1, n2, t1…t7, at (missing ones as typed NULLs)."""
    padded = [*texts, *([None] * (7 - len(texts)))]
    out: list[Any] = [literal(kind, Text).label("kind")]
    out += [(cast(null(), Integer) if v is None else v).label(f"n{i}") for i, v in enumerate((n1, n2), 1)]
    out += [(cast(null(), Text) if v is None else v).label(f"t{i}") for i, v in enumerate(padded, 1)]
    out.append((cast(null(), DateTime) if at is None else at).label("at"))
    return out


def _profile_rows(person_id: Any, unextracted_limit: int) -> list[Any]:
    """The profile row, exactly one (no FROM): its mark (0: none) and JSON text (NULL: none); then
    the first `unextracted_limit` exchanges after the mark (core/memory/profile.py `unextracted`)."""
    p = Profile.__table__.c  # type: ignore[attr-defined]
    data = select(p.data).where(p.person_id == person_id).scalar_subquery()
    upto = func.coalesce(select(p.extracted_upto).where(p.person_id == person_id).scalar_subquery(), 0)
    u = unextracted(person_id, upto, unextracted_limit).subquery()
    return [select(*_row("p", upto, None, data)), select(*_row("u", u.c.id, None, u.c.text, u.c.trace_id, u.c.reply))]


@lru_cache(maxsize=64)
def _query(*, limit: int, exclude: bool, in_group: bool, unextracted_limit: int):
    """The statement for one shape of read, built once: the chat, the person and the excluded trace
    are bound at execution (`chat_key`, `person_id`, `exclude_trace`)."""
    chat_key, person_id = bindparam("chat_key", type_=String), bindparam("person_id", type_=Integer)
    start = select(ChatMemory.window_start).where(ChatMemory.chat_key == chat_key).scalar_subquery()
    window = select(Message).where(
        Message.chat_key == chat_key,
        col(Message.id) > func.coalesce(start, 0),
        among(col(Message.role), CONVERSATION_ROLES),
        among(col(Message.status), WINDOW_STATUSES),
    )
    if exclude:
        window = window.where(Message.trace_id != bindparam("exclude_trace", type_=String))
    w = window.order_by(col(Message.id).desc()).limit(limit).subquery()
    facts = select(Fact).where(Fact.person_id == person_id)
    if in_group:
        facts = facts.where(Fact.scope == "group")
    f = facts.subquery()
    m = ChatMemory.__table__.c  # type: ignore[attr-defined]
    return union_all(
        select(*_row("s", m.summarized_upto, m.window_start, m.summary)).where(m.chat_key == chat_key),
        *_profile_rows(person_id, unextracted_limit),
        select(
            *_row(
                "f",
                f.c.id,
                None,
                f.c.text,
                f.c.scope,
                f.c.platform,
                f.c.account,
                f.c.chat_key,
                f.c.embedding,
                f.c.model,
                at=f.c.created_at,
            )
        ),
        select(*_row("m", w.c.id, None, w.c.text, w.c.role, w.c.speaker, w.c.account, w.c.trace_id, w.c.quoted)),
    )


def read_turn(
    engine: Engine,
    chat_key: str,
    person_id: int,
    *,
    limit: int,
    exclude_trace: str = "",
    in_group: bool = False,
    unextracted_limit: int = 0,
) -> TurnReads:
    """Summary state, window (the last `limit` lines, oldest first), facts, profile and the first
    `unextracted_limit` exchanges waiting for the profile's extraction: one statement."""
    state, profile, upto = ChatState(), "", 0
    lines: list[Line] = []
    facts: list[Fact] = []
    waiting: list[Exchange] = []
    query = _query(limit=limit, exclude=bool(exclude_trace), in_group=in_group, unextracted_limit=unextracted_limit)
    params = {"chat_key": chat_key, "person_id": person_id, "exclude_trace": exclude_trace}
    with engine.connect() as c:
        rows = c.execute(query, params).all()
    for kind, n1, n2, t1, t2, t3, t4, t5, t6, t7, at in rows:  # unpacked: a Row's named access costs more
        if kind == "s":
            state = ChatState(t1 or "", n1 or 0, n2 or 0)
        elif kind == "p":
            profile, upto = t1 or "", n1 or 0
        elif kind == "u":
            waiting.append(Exchange(n1, t1, t3 or "", t2 or ""))
        elif kind == "f":
            facts.append(_fact(person_id, n1, t1, t2, t3, t4, t5, t6, t7, at))
        else:
            lines.append(Line(n1, t2, t1, t3 or "", t4 or "", t5 or "", load_quotes(t6)))
    lines.sort(key=lambda line: line.id)
    facts.sort(key=lambda fact: fact.id or 0)
    waiting.sort(key=lambda exchange: exchange.question_id)
    return TurnReads(state, lines, facts, profile, Batch(profile, upto, waiting))


def _fact(person_id: int, n1: Any, *texts: Any) -> Fact:
    text, scope, platform, account, chat_key, embedding, model, at = texts
    return Fact(
        id=n1,
        person_id=person_id,
        text=text,
        scope=scope,
        platform=platform or "",
        account=account or "",
        chat_key=chat_key or "",
        embedding=embedding or "[]",
        model=model or "",
        created_at=at,
    )
