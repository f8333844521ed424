"""The inbox's SQL store (table ``inbox``): durable, shared by every process on the database.

Each method is one statement and one commit: ``put`` is ``INSERT … ON CONFLICT DO NOTHING``, ``claim``
an ``UPDATE`` guarded by the owner and heartbeat it read (compare-and-set, so one claimer wins).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import UTC, datetime

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from core.inbox.store import EntryStatus, InboxEntry
from core.storage.base import _Repo, conflict_insert
from core.storage.models import InboxRow
from core.storage.rows import affected

PENDING = "pending"


def _insert(dialect: str):
    return conflict_insert(dialect)


def _aware(at: datetime) -> datetime:
    """SQLite hands datetimes back naive; they were written in UTC."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _entry(row: InboxRow) -> InboxEntry:
    return InboxEntry(
        row.platform,
        row.key,
        json.loads(row.payload),
        row.owner,
        _aware(row.received_at),
        _aware(row.heartbeat_at),
        row.attempts,
    )


class SqlInboxStore(_Repo):
    """:class:`core.inbox.InboxStore` over the ``inbox`` table (module docstring)."""

    async def put(self, entry: InboxEntry) -> bool:
        values = dict(
            platform=entry.platform,
            key=entry.key,
            payload=json.dumps(entry.payload, ensure_ascii=False, separators=(",", ":")),
            status=PENDING,
            owner=entry.owner,
            attempts=entry.attempts,
            received_at=entry.received_at,
            heartbeat_at=entry.heartbeat_at,
        )

        def run(s: Session) -> bool:
            stmt = _insert(s.get_bind().dialect.name)(InboxRow).values(**values)
            stmt = stmt.on_conflict_do_nothing(index_elements=["platform", "key"])
            kept = s.execute(stmt.returning(InboxRow.id)).first() is not None  # rowcount is -1 on psycopg
            s.commit()
            return kept

        return await self._run(run)

    async def finish(self, platform: str, key: str, status: EntryStatus, at: datetime) -> None:
        stmt = (
            update(InboxRow)
            .where(col(InboxRow.platform) == platform, col(InboxRow.key) == key, col(InboxRow.status) == PENDING)
            .values(status=status, closed_at=at)
        )
        await self._run(lambda s: _commit(s, stmt))

    async def heartbeat(self, owner: str, at: datetime) -> None:
        stmt = (
            update(InboxRow)
            .where(col(InboxRow.owner) == owner, col(InboxRow.status) == PENDING)
            .values(heartbeat_at=at)
        )
        await self._run(lambda s: _commit(s, stmt))

    async def stale(
        self, platforms: Collection[str], silent_since: datetime, limit: int, *, not_owner: str
    ) -> list[InboxEntry]:
        if not platforms:
            return []
        query = (
            select(InboxRow)
            .where(
                col(InboxRow.status) == PENDING,
                col(InboxRow.heartbeat_at) < silent_since,
                col(InboxRow.platform).in_(list(platforms)),
                col(InboxRow.owner) != not_owner,
            )
            .order_by(col(InboxRow.received_at))
            .limit(limit)
        )
        return await self._run(lambda s: [_entry(row) for row in s.exec(query)])

    async def claim(self, entry: InboxEntry, owner: str, at: datetime) -> bool:
        stmt = (
            update(InboxRow)
            .where(
                col(InboxRow.platform) == entry.platform,
                col(InboxRow.key) == entry.key,
                col(InboxRow.status) == PENDING,
                col(InboxRow.owner) == entry.owner,
                col(InboxRow.heartbeat_at) == entry.heartbeat_at,
            )
            .values(owner=owner, heartbeat_at=at, attempts=entry.attempts + 1)
        )
        return await self._run(lambda s: _commit(s, stmt)) == 1

    async def purge(self, closed_before: datetime) -> int:
        stmt = delete(InboxRow).where(col(InboxRow.closed_at) < closed_before)
        return await self._run(lambda s: _commit(s, stmt))


def _commit(s: Session, stmt) -> int:
    changed = affected(s.execute(stmt))
    s.commit()
    return changed
