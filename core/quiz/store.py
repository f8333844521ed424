"""SQL of group quizzes: opening (one per chat), answers scored exactly once, scores and streaks.

- One open quiz per chat: `quiz_open` has the chat as its primary key. Opening inserts the quiz and
  `INSERT … ON CONFLICT DO NOTHING` its `quiz_open` row in one transaction; the loser rolls back and
  gets the quiz that is open. A row whose quiz ran out (`closes_at` passed) is removed first.
- An answer is `INSERT … ON CONFLICT (quiz_id, account) DO NOTHING`: the first answer delivered is
  the one scored; a duplicate update, a replica's copy or a second button press inserts nothing.
- Closing is `UPDATE … WHERE status = 'open'`: one process wins and shows the results.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import cast

from sqlalchemy import CursorResult, Integer, delete, func, update
from sqlalchemy import cast as sql_cast
from sqlmodel import Session, col, select

from core.quiz.generate import Quiz
from core.quiz.models import QuizAnswer, QuizOpen, QuizRow
from core.storage.base import _Repo, conflict_insert


def _insert(s: Session):
    return conflict_insert(s.get_bind().dialect.name)


def _rows(result) -> int:
    return cast(CursorResult, result).rowcount


@dataclass(frozen=True)
class Opened:
    """The quiz opened now (`new` True), or the chat's quiz that is still open (`new` False)."""

    row: QuizRow
    new: bool


@dataclass(frozen=True)
class Score:
    """One person's score in one chat over a period."""

    account: str
    name: str
    right: int
    answered: int


class QuizRepo(_Repo):
    """The quiz tables (core/quiz/models.py)."""

    async def open(self, chat_key: str, quiz: Quiz, *, origin: str, now: datetime, closes_at: datetime) -> Opened:
        def run(s: Session) -> Opened:
            stale = select(QuizOpen).where(QuizOpen.chat_key == chat_key, col(QuizOpen.closes_at) <= now)
            for gone in s.exec(stale):
                s.execute(
                    delete(QuizOpen).where(col(QuizOpen.chat_key) == chat_key, col(QuizOpen.quiz_id) == gone.quiz_id)
                )
            s.commit()
            row = QuizRow(
                chat_key=chat_key,
                kind=quiz.kind,
                passage_id=quiz.passage_id,
                question=quiz.question,
                options="\n".join(quiz.options),
                correct=quiz.correct,
                explanation=quiz.explanation,
                origin=origin,
                created_at=now,
                closes_at=closes_at,
            )
            s.add(row)
            s.flush()
            stmt = _insert(s)(QuizOpen).values(chat_key=chat_key, quiz_id=row.id, closes_at=closes_at)
            won = s.execute(stmt.on_conflict_do_nothing(index_elements=["chat_key"]).returning(QuizOpen.chat_key))
            if won.first() is not None:
                s.commit()
                return Opened(row, True)
            s.rollback()
            held = s.get(QuizOpen, chat_key)
            existing = s.get(QuizRow, held.quiz_id) if held is not None else None
            if existing is None:  # closed between the two statements: the caller may try again
                raise LookupError(chat_key)
            return Opened(existing, False)

        return await self._run(run)

    async def posted(self, quiz_id: int, *, poll_id: str | None, message_id: str | None) -> None:
        await self._update(quiz_id, status="open", poll_id=poll_id, message_id=message_id)

    async def failed(self, quiz_id: int, detail: str = "") -> None:
        await self._update(quiz_id, status="failed")
        await self._release(quiz_id)

    async def close(self, quiz_id: int, now: datetime) -> bool:
        """Mark an open quiz closed; True for the one caller that closed it."""

        def run(s: Session) -> bool:
            stmt = update(QuizRow).where(col(QuizRow.id) == quiz_id, col(QuizRow.status) == "open")
            won = _rows(s.execute(stmt.values(status="closed", closed_at=now))) == 1
            s.execute(delete(QuizOpen).where(col(QuizOpen.quiz_id) == quiz_id))
            s.commit()
            return won

        return await self._run(run)

    async def due(self, now: datetime, limit: int = 100) -> list[QuizRow]:
        """Open quizzes whose time is up, oldest first."""
        query = (
            select(QuizRow)
            .where(col(QuizRow.status) == "open", col(QuizRow.closes_at) <= now)
            .order_by(col(QuizRow.id))
            .limit(limit)
        )
        return await self._run(lambda s: list(s.exec(query)))

    async def get(self, quiz_id: int) -> QuizRow | None:
        return await self._run(lambda s: s.get(QuizRow, quiz_id))

    async def by_poll(self, poll_id: str) -> QuizRow | None:
        return await self._run(lambda s: s.exec(select(QuizRow).where(QuizRow.poll_id == poll_id)).first())

    async def answer(self, quiz: QuizRow, account: str, name: str, option: int, *, day: date, now: datetime) -> bool:
        """Score `account`'s answer; False when that account's answer to this quiz is already in."""

        def run(s: Session) -> bool:
            values = dict(
                quiz_id=quiz.id,
                chat_key=quiz.chat_key,
                account=account,
                name=name[:256],
                option=option,
                correct=option == quiz.correct,
                day=day,
                answered_at=now,
            )
            stmt = _insert(s)(QuizAnswer).values(**values)
            stmt = stmt.on_conflict_do_nothing(index_elements=["quiz_id", "account"])
            won = s.execute(stmt.returning(QuizAnswer.id)).first() is not None
            s.commit()
            return won

        return await self._run(run)

    async def tally(self, quiz_id: int) -> list[QuizAnswer]:
        query = select(QuizAnswer).where(QuizAnswer.quiz_id == quiz_id).order_by(col(QuizAnswer.id))
        return await self._run(lambda s: list(s.exec(query)))

    async def scores(self, chat_key: str, since: datetime | None, limit: int = 10) -> list[Score]:
        """The chat's best scores (right answers, then fewer answers) since `since` (None: all time)."""
        right = func.sum(sql_cast(col(QuizAnswer.correct), Integer))
        query = select(QuizAnswer.account, func.max(QuizAnswer.name), right, func.count()).where(
            QuizAnswer.chat_key == chat_key
        )
        if since is not None:
            query = query.where(col(QuizAnswer.answered_at) >= since)
        query = query.group_by(col(QuizAnswer.account)).order_by(right.desc(), func.count(), col(QuizAnswer.account))

        def run(s: Session) -> list[Score]:
            rows = s.exec(query.limit(limit))
            return [Score(a, n or "", int(r or 0), int(c)) for a, n, r, c in rows]

        return await self._run(run)

    async def right_days(self, chat_key: str, accounts: Iterable[str], since: date) -> dict[str, set[date]]:
        """The days (chat's local dates) since `since` on which each account answered right."""
        wanted = sorted(set(accounts))
        if not wanted:
            return {}
        query = (
            select(col(QuizAnswer.account), col(QuizAnswer.day))
            .where(
                QuizAnswer.chat_key == chat_key,
                col(QuizAnswer.correct).is_(True),
                col(QuizAnswer.day) >= since,
                col(QuizAnswer.account).in_(wanted),
            )
            .distinct()
        )

        def run(s: Session) -> dict[str, set[date]]:
            days: dict[str, set[date]] = {}
            for account, day in s.exec(query):
                days.setdefault(account, set()).add(day)
            return days

        return await self._run(run)

    async def forget_accounts(self, accounts: Iterable[str]) -> int:
        """Delete every answer of these accounts (/forget all); returns how many."""
        wanted = sorted(set(accounts))
        if not wanted:
            return 0

        def run(s: Session) -> int:
            n = _rows(s.execute(delete(QuizAnswer).where(col(QuizAnswer.account).in_(wanted))))
            s.commit()
            return n

        return await self._run(run)

    async def _update(self, quiz_id: int, **values) -> None:
        def run(s: Session) -> None:
            s.execute(update(QuizRow).where(col(QuizRow.id) == quiz_id).values(**values))
            s.commit()

        await self._run(run)

    async def _release(self, quiz_id: int) -> None:
        def run(s: Session) -> None:
            s.execute(delete(QuizOpen).where(col(QuizOpen.quiz_id) == quiz_id))
            s.commit()

        await self._run(run)
