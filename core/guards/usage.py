"""Token usage per person per day, stored in SQL through SQLModel.

All SQL runs in a worker thread (`asyncio.to_thread`, or the caller's own: `add_blocking`) so the
event loop never blocks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from sqlalchemy import bindparam, func, insert, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from core.guards.models import GuardUsage
from core.storage.models import ReplyStats
from core.storage.rows import affected

Now = Callable[[], datetime]

_U = GuardUsage.__table__  # type: ignore[attr-defined]
_BUMP = (
    update(_U)
    .where(_U.c.person_id == bindparam("b_person"), _U.c.day == bindparam("b_day"))
    .values(
        requests=_U.c.requests + 1,
        prompt_tokens=_U.c.prompt_tokens + bindparam("b_prompt"),
        completion_tokens=_U.c.completion_tokens + bindparam("b_completion"),
    )
)
"""One request more on a person's day (built once: every answer runs it)."""
_FIRST = insert(_U)
"""The day's row, on a person's first request of the day."""


@dataclass(frozen=True)
class UsageFigures:
    """Summed usage: requests and tokens, and for totals how many people."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    people: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class UsageStore:
    """Reads and adds token usage per person per day.

    Args:
        engine: the SQLAlchemy engine (built once in bot/).
        tz: the time zone whose calendar day a "day" is.
        now: wall clock returning an aware datetime; tests pass a fixed one.
    """

    def __init__(self, engine: Engine, *, tz: tzinfo = UTC, now: Now | None = None) -> None:
        self._engine = engine
        self._tz = tz
        self._now = now or (lambda: datetime.now(UTC))

    def create_table(self) -> None:
        """Create the usage tables when missing (wiring may instead create all of SQLModel.metadata):
        the day's figures per person, and the answers' figures per model (`reply_stats`)."""
        GuardUsage.__table__.create(self._engine, checkfirst=True)  # type: ignore[attr-defined]
        ReplyStats.__table__.create(self._engine, checkfirst=True)  # type: ignore[attr-defined]

    def today(self) -> str:
        """Today's date (YYYY-MM-DD) in the store's time zone."""
        return self._now().astimezone(self._tz).date().isoformat()

    def seconds_until_tomorrow(self) -> float:
        """Seconds until the next day starts in the store's time zone."""
        now = self._now().astimezone(self._tz)
        midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=self._tz)
        return max((midnight - now).total_seconds(), 1.0)

    async def add(self, person_id: int, prompt_tokens: int, completion_tokens: int) -> None:
        """Add one request's tokens to today's row for `person_id`."""
        await asyncio.to_thread(self.add_blocking, person_id, prompt_tokens, completion_tokens)

    def add_blocking(self, person_id: int, prompt_tokens: int, completion_tokens: int) -> None:
        """`add` for a caller already in a worker thread (it blocks on the database)."""
        self._add(person_id, self.today(), prompt_tokens, completion_tokens)

    async def for_person(self, person_id: int, day: str | None = None) -> UsageFigures:
        """One person's usage on `day` (default today)."""
        return await asyncio.to_thread(self._sum, day or self.today(), person_id)

    async def totals(self, day: str | None = None) -> UsageFigures:
        """Everyone's usage on `day` (default today), with the number of people."""
        return await asyncio.to_thread(self._sum, day or self.today(), None)

    async def by_model(self, person_id: int | None, day: str | None = None) -> dict[str, tuple[int, int]]:
        """(prompt, completion) tokens per model on `day` (default today), of one person or (None)
        everyone, from the answers' own figures (`reply_stats`, written with each answer)."""
        return await asyncio.to_thread(self._by_model, day or self.today(), person_id)

    def _by_model(self, day: str, person_id: int | None) -> dict[str, tuple[int, int]]:
        start = datetime.combine(datetime.fromisoformat(day).date(), datetime.min.time(), tzinfo=self._tz)
        stmt = (
            select(ReplyStats.model, func.sum(ReplyStats.prompt_tokens), func.sum(ReplyStats.completion_tokens))
            .where(col(ReplyStats.created_at) >= start, col(ReplyStats.created_at) < start + timedelta(days=1))
            .where(col(ReplyStats.model).is_not(None))
            .group_by(col(ReplyStats.model))
        )
        if person_id is not None:
            stmt = stmt.where(ReplyStats.person_id == person_id)
        with Session(self._engine) as session:
            return {str(m): (int(p or 0), int(c or 0)) for m, p, c in session.exec(stmt)}

    def _add(self, person_id: int, day: str, prompt: int, completion: int) -> None:
        for _ in range(3):
            try:
                with self._engine.begin() as connection:
                    if not self._bump(connection, person_id, day, prompt, completion):
                        row = {"person_id": person_id, "day": day, "requests": 1}
                        connection.execute(_FIRST, {**row, "prompt_tokens": prompt, "completion_tokens": completion})
                return
            except IntegrityError:  # another writer created the row first (rolled back): update it instead
                continue
        raise RuntimeError("could not record usage")

    @staticmethod
    def _bump(connection: Connection, person_id: int, day: str, prompt: int, completion: int) -> bool:
        values = {"b_person": person_id, "b_day": day, "b_prompt": prompt, "b_completion": completion}
        return affected(connection.execute(_BUMP, values)) > 0

    def _sum(self, day: str, person_id: int | None) -> UsageFigures:
        stmt = select(
            func.coalesce(func.sum(GuardUsage.requests), 0),
            func.coalesce(func.sum(GuardUsage.prompt_tokens), 0),
            func.coalesce(func.sum(GuardUsage.completion_tokens), 0),
            func.count(col(GuardUsage.id)),
        ).where(GuardUsage.day == day)
        if person_id is not None:
            stmt = stmt.where(GuardUsage.person_id == person_id)
        with Session(self._engine) as session:
            requests, prompt, completion, people = session.exec(stmt).one()
        return UsageFigures(int(requests), int(prompt), int(completion), int(people))
