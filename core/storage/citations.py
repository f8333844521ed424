"""The footnotes of each reply: one `reply_citations` row per reply, stored with the reply's text.

The row keeps ``[{"n", "id", "ref"}]`` as JSON: the web page's history shows the footnotes again
(core/storage/chatlog.py) and `fuzi feedback` names the passages a judged answer cited
(core/storage/feedback.py). The engine writes it in the transaction that gives the reply its text
(`ReplyRepo.finish`), so a client that got the final event finds the footnotes in the history.
Issue 22's `reply_cited` kept the references alone; revision 0024_i21c moved its rows here.

The functions take an open session, so the repositories above read and write footnotes in their own
transactions; :class:`CitationRepo` reads them for callers without one (the write happens only in
`ReplyRepo.finish`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from functools import cache
from typing import Any

from sqlalchemy import Connection
from sqlmodel import Session, col, select

from core.events import Citation
from core.storage.base import UPSERT_DIALECTS, _Repo, conflict_insert
from core.storage.models import ReplyCitations
from core.storage.rows import dialect_of

Footnote = dict[str, Any]
"""One footnote as stored and as the web API returns it: ``{"n": 1, "id": "lunyu:3.22", "ref": "…"}``."""


def footnotes(citations: Sequence[Citation]) -> list[Footnote]:
    """The stored form of a reply's citations (the passage text stays in the corpus)."""
    return [{"n": c.n, "id": c.id, "ref": c.ref} for c in citations]


def keep(s: Session | Connection, chat_key: str, trace_id: str, citations: Sequence[Citation]) -> None:
    """Store (or replace) the footnotes of reply ``trace_id`` in ``s``; the caller commits.

    One statement on SQLite and PostgreSQL (an upsert, built once per dialect); elsewhere (a session
    only) a read, then an insert or update.
    """
    data = json.dumps(footnotes(citations), ensure_ascii=False)
    dialect = dialect_of(s)
    if dialect not in UPSERT_DIALECTS:
        if not isinstance(s, Session):
            raise TypeError(f"footnotes on {dialect} are kept through a session")
        s.merge(ReplyCitations(trace_id=trace_id, chat_key=chat_key, data=data))
        return
    s.execute(_upsert(dialect), {"trace_id": trace_id, "chat_key": chat_key, "data": data})


@cache
def _upsert(dialect: str) -> Any:
    """INSERT … ON CONFLICT (trace_id) DO UPDATE of a reply's footnotes, its values bound at execution."""
    statement = conflict_insert(dialect)(ReplyCitations.__table__)  # type: ignore[attr-defined]
    new = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=["trace_id"], set_={"chat_key": new.chat_key, "data": new.data}
    )


def of(s: Session, trace_ids: Collection[str]) -> dict[str, list[Footnote]]:
    """The footnotes of each reply in ``trace_ids`` that has any."""
    if not trace_ids:
        return {}
    rows = s.exec(select(ReplyCitations).where(col(ReplyCitations.trace_id).in_(list(trace_ids))))
    return {row.trace_id: json.loads(row.data) if row.data else [] for row in rows}


def refs(s: Session, trace_id: str) -> tuple[str, ...]:
    """The human references a reply cited, in footnote order (empty when it cited nothing)."""
    return tuple(f["ref"] for f in of(s, [trace_id]).get(trace_id, []) if f.get("ref"))


class CitationRepo(_Repo):
    """The footnotes of replies, read by callers without a session of their own (module docstring)."""

    async def of(self, trace_ids: Collection[str]) -> dict[str, list[Footnote]]:
        """The footnotes of each reply in ``trace_ids`` that has any."""
        return await self._run(lambda s: of(s, trace_ids))
