"""The reading room's rows: where each person stopped reading, and their bookmarks.

Both are keyed by the person id memory uses (`IdentityRepo.resolve`), so a Telegram user reading in
the Mini App is the same person as in their Telegram chats, and linked accounts share them.
Tables of migration 0032_reading.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, func, select

from core.storage.base import _Repo
from core.storage.models import utcnow

T = TypeVar("T")
MAX_BOOKMARKS = 1000
"""A person keeps at most this many bookmarks; adding beyond it is refused (the API says 409)."""


class ReadingPosition(SQLModel, table=True):
    """The passage a person read last."""

    __tablename__ = "reading_position"

    person_id: int = Field(primary_key=True)
    passage_id: str = Field(max_length=64)
    updated_at: datetime = Field(default_factory=utcnow)


class Bookmark(SQLModel, table=True):
    """One passage a person bookmarked."""

    __tablename__ = "bookmark"

    person_id: int = Field(primary_key=True)
    passage_id: str = Field(primary_key=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class ReadingRepo(_Repo):
    """Positions and bookmarks (SQL in worker threads, like every repository)."""

    async def position(self, person_id: int) -> str | None:
        """The passage id the person read last, or None."""
        row = await self._run(lambda s: s.get(ReadingPosition, person_id))
        return row.passage_id if row is not None else None

    async def set_position(self, person_id: int, passage_id: str) -> None:
        def store(s: Session) -> None:
            row = s.get(ReadingPosition, person_id, with_for_update=True)
            if row is None:
                row = ReadingPosition(person_id=person_id, passage_id=passage_id)
            row.passage_id, row.updated_at = passage_id, utcnow()
            s.add(row)
            s.commit()

        await self._run(lambda s: _again_on_conflict(s, store))

    async def bookmarks(self, person_id: int) -> list[tuple[str, datetime]]:
        """(passage id, when) of each bookmark, oldest first."""
        query = select(Bookmark).where(Bookmark.person_id == person_id).order_by(col(Bookmark.created_at))
        return await self._run(lambda s: [(b.passage_id, b.created_at) for b in s.exec(query)])

    async def add_bookmark(self, person_id: int, passage_id: str) -> bool:
        """Bookmark a passage (again: nothing changes); False when the person has MAX_BOOKMARKS already."""

        def store(s: Session) -> bool:
            if s.get(Bookmark, (person_id, passage_id)) is not None:
                return True
            held = s.exec(select(func.count()).select_from(Bookmark).where(Bookmark.person_id == person_id)).one()
            if held >= MAX_BOOKMARKS:
                return False
            s.add(Bookmark(person_id=person_id, passage_id=passage_id))
            s.commit()
            return True

        return await self._run(lambda s: _again_on_conflict(s, store))

    async def remove_bookmark(self, person_id: int, passage_id: str) -> None:
        """Forget a bookmark (idempotent)."""

        def remove(s: Session) -> None:
            s.execute(
                delete(Bookmark).where(col(Bookmark.person_id) == person_id, col(Bookmark.passage_id) == passage_id)
            )
            s.commit()

        await self._run(remove)


def _again_on_conflict(s: Session, write: Callable[[Session], T], attempts: int = 3) -> T:
    """Run ``write`` again when another process inserted the same row first (it then finds it)."""
    for attempt in range(1, attempts + 1):
        try:
            return write(s)
        except IntegrityError:
            s.rollback()
            if attempt == attempts:
                raise
    raise AssertionError("unreachable")


def merge_reading(s: Session, *, source: int, target: int) -> None:
    """Account linking (core/memory/linking.py): ``source``'s bookmarks join ``target``'s, and the more
    recent of the two positions is kept; part of the caller's transaction (no commit)."""
    theirs = set(s.exec(select(Bookmark.passage_id).where(Bookmark.person_id == target)))
    for mark in list(s.exec(select(Bookmark).where(Bookmark.person_id == source))):
        if mark.passage_id not in theirs:
            s.add(Bookmark(person_id=target, passage_id=mark.passage_id, created_at=mark.created_at))
        s.delete(mark)
    old, mine = s.get(ReadingPosition, source), s.get(ReadingPosition, target)
    if old is not None:
        if mine is None:
            s.add(ReadingPosition(person_id=target, passage_id=old.passage_id, updated_at=old.updated_at))
        elif _aware(old.updated_at) > _aware(mine.updated_at):
            mine.passage_id, mine.updated_at = old.passage_id, old.updated_at
            s.add(mine)
        s.delete(old)


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone (they were written in UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
