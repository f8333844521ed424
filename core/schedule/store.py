"""SQL for scheduled posts: claims exactly once across processes, the passage rotation, the digest store.

Exactly once: a post is claimed by inserting its row (chat, kind, local date) with
`INSERT … ON CONFLICT DO NOTHING` (SQLite and PostgreSQL); the one process whose insert made the row
posts, every other process sees zero rows inserted and moves on. A claim whose owner died before
finishing (status still "claimed" after `CLAIM_LEASE`) may be taken over by one other process
(`UPDATE … WHERE status = 'claimed' AND claimed_at < cutoff`, again one winner).
"""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import cast

import structlog
from sqlalchemy import CursorResult, delete, update
from sqlmodel import Session, col, select

from core.schedule.models import DigestMessage, ScheduleClaim, ScheduleSeen
from core.schedule.timing import Occurrence
from core.storage.base import _Repo, conflict_insert

log = structlog.get_logger(__name__)

CLAIM_LEASE = timedelta(minutes=10)
"""A claim still "claimed" this long after it was made belongs to a dead process: another may take it.
Well above one post's worst case (an LLM explanation is cut at 20 s, sending retries a few times)."""

OWNER = f"{socket.gethostname()[:40]}:{os.getpid()}"


def _now() -> datetime:
    return datetime.now(UTC)


def _rows(result) -> int:
    """Rows an UPDATE/DELETE changed (a CursorResult's rowcount)."""
    return cast(CursorResult, result).rowcount


def _insert(dialect: str):
    return conflict_insert(dialect)


class ClaimRepo(_Repo):
    """Claims of scheduled posts (see the module docstring)."""

    async def claim(
        self, chat_key: str, kind: str, occ: Occurrence, *, status: str = "claimed", now: datetime | None = None
    ) -> bool:
        """True when this process won the (chat, kind, local date) row; False when another has it.

        `status="skipped"` records a missed post once (its log line is written by the one winner).
        `now`: the claiming process's clock (the lease of a takeover is measured on it).
        """
        claimed_at = now or _now()

        def run(s: Session) -> bool:
            values = dict(
                chat_key=chat_key,
                kind=kind,
                local_date=occ.local_date,
                due_at=occ.due_at,
                status=status,
                owner=OWNER,
                claimed_at=claimed_at,
            )
            stmt = _insert(s.get_bind().dialect.name)(ScheduleClaim).values(**values)
            stmt = stmt.on_conflict_do_nothing(index_elements=["chat_key", "kind", "local_date"])
            won = s.execute(stmt.returning(ScheduleClaim.id)).first() is not None  # rowcount is -1 on psycopg
            s.commit()
            return won

        return await self._run(run)

    async def take_over(self, chat_key: str, kind: str, local_date: date, *, now: datetime | None = None) -> bool:
        """Take a claim whose owner left it "claimed" for longer than CLAIM_LEASE (one winner)."""
        now = now or _now()
        cutoff = now - CLAIM_LEASE

        def run(s: Session) -> bool:
            stmt = (
                update(ScheduleClaim)
                .where(
                    col(ScheduleClaim.chat_key) == chat_key,
                    col(ScheduleClaim.kind) == kind,
                    col(ScheduleClaim.local_date) == local_date,
                    col(ScheduleClaim.status) == "claimed",
                    col(ScheduleClaim.claimed_at) < cutoff,
                )
                .values(owner=OWNER, claimed_at=now)
            )
            won = _rows(s.execute(stmt)) == 1
            s.commit()
            return won

        return await self._run(run)

    async def finish(
        self, chat_key: str, kind: str, local_date: date, status: str, *, passage_id: str | None = None, detail=""
    ) -> None:
        """Record how the claimed post ended ("sent", "gone", "failed", "skipped")."""

        def run(s: Session) -> None:
            s.execute(
                update(ScheduleClaim)
                .where(
                    col(ScheduleClaim.chat_key) == chat_key,
                    col(ScheduleClaim.kind) == kind,
                    col(ScheduleClaim.local_date) == local_date,
                )
                .values(status=status, finished_at=_now(), passage_id=passage_id, detail=str(detail)[:200])
            )
            s.commit()

        await self._run(run)

    async def get(self, chat_key: str, kind: str, local_date: date) -> ScheduleClaim | None:
        query = select(ScheduleClaim).where(
            ScheduleClaim.chat_key == chat_key, ScheduleClaim.kind == kind, ScheduleClaim.local_date == local_date
        )
        return await self._run(lambda s: s.exec(query).first())

    async def all(self, chat_key: str | None = None) -> list[ScheduleClaim]:
        """Every claim (of one chat), oldest first: for tests, benchmarks and `fuzi` diagnostics."""
        query = select(ScheduleClaim).order_by(col(ScheduleClaim.id))
        if chat_key is not None:
            query = query.where(ScheduleClaim.chat_key == chat_key)
        return await self._run(lambda s: list(s.exec(query)))


class RotationRepo(_Repo):
    """Which passages a chat's daily post has shown; the next one is drawn from those not yet shown."""

    async def next_passage(self, chat_key: str, ids: Sequence[str], seed: str) -> str:
        """A passage id this chat has not been shown in the current round (drawn reproducibly from
        `seed`); when every id was shown, a new round starts (the last shown one is not drawn first)."""

        def run(s: Session) -> str:
            rows = list(s.exec(select(ScheduleSeen).where(ScheduleSeen.chat_key == chat_key)))
            seen = {r.passage_id for r in rows}
            unseen = [i for i in ids if i not in seen]
            if not unseen:
                last = max(rows, key=lambda r: r.seen_at).passage_id if rows else None
                s.execute(delete(ScheduleSeen).where(col(ScheduleSeen.chat_key) == chat_key))
                s.commit()
                log.info("schedule_rotation_new_round", chat=chat_key, shown=len(seen))
                unseen = [i for i in ids if i != last] or list(ids)
            return random.Random(seed).choice(sorted(unseen))

        return await self._run(run)

    async def mark_seen(self, chat_key: str, passage_id: str) -> None:
        def run(s: Session) -> None:
            stmt = _insert(s.get_bind().dialect.name)(ScheduleSeen).values(
                chat_key=chat_key, passage_id=passage_id, seen_at=_now()
            )
            s.execute(stmt.on_conflict_do_nothing(index_elements=["chat_key", "passage_id"]))
            s.commit()

        await self._run(run)

    async def seen(self, chat_key: str) -> set[str]:
        query = select(ScheduleSeen.passage_id).where(ScheduleSeen.chat_key == chat_key)
        return await self._run(lambda s: set(s.exec(query)))


class DigestRepo(_Repo):
    """The digest's store of a group's ordinary messages (only while digest is on; ≤ 48 hours)."""

    async def add(self, chat_key: str, speaker: str, text: str) -> None:
        def run(s: Session) -> None:
            s.add(DigestMessage(chat_key=chat_key, speaker=speaker[:256], text=text))
            s.commit()

        await self._run(run)

    async def since(self, chat_key: str, start: datetime, limit: int) -> list[DigestMessage]:
        """The chat's messages from `start` on, oldest first (the newest `limit` of them)."""
        query = (
            select(DigestMessage)
            .where(DigestMessage.chat_key == chat_key, col(DigestMessage.created_at) >= start)
            .order_by(col(DigestMessage.id).desc())
            .limit(limit)
        )
        rows = await self._run(lambda s: list(s.exec(query)))
        return rows[::-1]

    async def forget_chat(self, chat_key: str) -> int:
        """Delete everything kept for this chat (digest switched off); returns how many rows."""
        return await self._delete(col(DigestMessage.chat_key) == chat_key)

    async def purge(self, older_than: datetime, *, keep_chats: set[str] | None = None) -> int:
        """Delete rows older than `older_than`, and (when `keep_chats` is given) every row of a chat
        not in it (digest off there: a message stored in the instant it was switched off)."""
        removed = await self._delete(col(DigestMessage.created_at) < older_than)
        if keep_chats is not None:
            removed += await self._delete(col(DigestMessage.chat_key).not_in(sorted(keep_chats) or [""]))
        return removed

    async def _delete(self, where) -> int:
        def run(s: Session) -> int:
            count = _rows(s.execute(delete(DigestMessage).where(where)))
            s.commit()
            return count

        return await self._run(run)
