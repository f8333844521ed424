"""SQL of recitation (SQLite and PostgreSQL): decks, reviews, the open card of a chat, reminders.

Every change that two replicas could race on is one statement or one transaction: adding cards is
`INSERT … ON CONFLICT DO NOTHING`; taking the open card to check an answer is
`DELETE … RETURNING` (one process gets the row, so one answer is reviewed once); a review updates
the card only when its `reviews` count is still the one that was read (a second answer racing the
first changes nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, exists, func, update
from sqlmodel import Session, col, select

from core.recite.models import ReciteCard, ReciteOpen, ReciteReminder, ReciteReview
from core.recite.scheduling import RatingName, new_state, review
from core.storage.base import _Repo, conflict_insert
from core.storage.chatlog import aware

TABLES = (ReciteCard, ReciteReview, ReciteOpen, ReciteReminder)


def _insert(s: Session):
    return conflict_insert(s.get_bind().dialect.name)


@dataclass(frozen=True)
class Stats:
    """`/recite stats`: cards, due now, due by the end of the local day, reviews (all, today), and
    the share answered right over the last 30 days (None without reviews)."""

    cards: int
    due_now: int
    due_today: int
    reviewed: int
    reviewed_today: int
    retention: float | None


class ReciteStore(_Repo):
    """The recitation tables of every person (see the module docstring)."""

    # ---------------------------------------------------------------- the deck
    async def cards(self, person_id: int) -> list[ReciteCard]:
        """The person's cards in the order they were added (the numbering of /recite list)."""
        query = select(ReciteCard).where(ReciteCard.person_id == person_id).order_by(col(ReciteCard.id))
        return await self._run(lambda s: list(s.exec(query)))

    async def count(self, person_id: int) -> int:
        query = select(func.count()).select_from(ReciteCard).where(ReciteCard.person_id == person_id)
        return await self._run(lambda s: int(s.exec(query).one()))

    async def add(self, person_id: int, passage_ids: Sequence[str], now: datetime) -> list[str]:
        """Add passages to the deck (due at once); returns the ids that were not there yet."""

        def run(s: Session) -> list[str]:
            added = []
            for passage_id in passage_ids:
                fresh = new_state(now)
                stmt = (
                    _insert(s)(ReciteCard)
                    .values(person_id=person_id, passage_id=passage_id, added_at=now, due=now, state=fresh.state)
                    .on_conflict_do_nothing(index_elements=["person_id", "passage_id"])
                    .returning(col(ReciteCard.id))
                )
                if s.execute(stmt).first() is not None:
                    added.append(passage_id)
            s.commit()
            return added

        return await self._run(run)

    async def remove(self, person_id: int, card_id: int) -> bool:
        def run(s: Session) -> bool:
            gone = s.execute(
                delete(ReciteCard).where(col(ReciteCard.id) == card_id, col(ReciteCard.person_id) == person_id)
            )
            s.execute(delete(ReciteOpen).where(col(ReciteOpen.card_id) == card_id))
            s.commit()
            return bool(getattr(gone, "rowcount", 0))

        return await self._run(run)

    async def next_due(
        self, person_id: int, now: datetime, limit: int = 20
    ) -> tuple[list[ReciteCard], datetime | None]:
        """(the most overdue cards, most overdue first; when the next card falls due, None: empty deck)."""
        query = (
            select(ReciteCard)
            .where(ReciteCard.person_id == person_id)
            .order_by(col(ReciteCard.due), col(ReciteCard.id))
        )

        def run(s: Session) -> tuple[list[ReciteCard], datetime | None]:
            first = list(s.exec(query.limit(limit)))
            due = [card for card in first if aware(card.due) <= now]
            later = [aware(card.due) for card in first if aware(card.due) > now]
            return due, (later[0] if later else None)

        return await self._run(run)

    # ---------------------------------------------------------------- the open card of a chat
    async def open(
        self, chat_key: str, person_id: int, card_id: int, line: str, phrase: str, expires: datetime, now: datetime
    ) -> bool:
        """Open a card in a chat (replacing the person's open one there); True when one was replaced."""

        def run(s: Session) -> bool:
            where = (col(ReciteOpen.chat_key) == chat_key) & (col(ReciteOpen.person_id) == person_id)
            replaced = s.execute(delete(ReciteOpen).where(where).returning(col(ReciteOpen.card_id))).first()
            s.add(
                ReciteOpen(
                    chat_key=chat_key,
                    person_id=person_id,
                    card_id=card_id,
                    line=line,
                    phrase=phrase,
                    created_at=now,
                    expires_at=expires,
                )
            )
            s.commit()
            return replaced is not None

        return await self._run(run)

    def open_exists(self, chat_key: Any, person_id: Any) -> Any:
        """An SQL EXISTS: the person (an id or a column) has an open card in this chat (a key or a bound parameter)."""
        return exists().where(col(ReciteOpen.chat_key) == chat_key, col(ReciteOpen.person_id) == person_id)

    async def take_open(self, chat_key: str, person_id: int) -> ReciteOpen | None:
        """Take the open card of this person in this chat (one statement; one caller gets it)."""
        stmt = (
            delete(ReciteOpen)
            .where(col(ReciteOpen.chat_key) == chat_key, col(ReciteOpen.person_id) == person_id)
            .returning(*ReciteOpen.__table__.columns)  # type: ignore[attr-defined]
        )

        def run(s: Session) -> ReciteOpen | None:
            row = s.execute(stmt).first()
            s.commit()
            return ReciteOpen(**row._asdict()) if row is not None else None

        return await self._run(run)

    async def put_back(self, card: ReciteOpen) -> None:
        """Open a taken card again (the message was not an answer: empty, too long)."""

        def run(s: Session) -> None:
            stmt = _insert(s)(ReciteOpen).values(**card.model_dump())
            s.execute(stmt.on_conflict_do_nothing(index_elements=["chat_key", "person_id"]))
            s.commit()

        await self._run(run)

    async def purge_open(self, before: datetime) -> int:
        """Delete open cards that expired before `before` (never answered, never replaced)."""

        def run(s: Session) -> int:
            gone = s.execute(delete(ReciteOpen).where(col(ReciteOpen.expires_at) < before))
            s.commit()
            return int(getattr(gone, "rowcount", 0))

        return await self._run(run)

    # ---------------------------------------------------------------- reviews
    async def card(self, person_id: int, card_id: int) -> ReciteCard | None:
        query = select(ReciteCard).where(ReciteCard.id == card_id, ReciteCard.person_id == person_id)
        return await self._run(lambda s: s.exec(query).first())

    async def review(
        self, person_id: int, card_id: int, rating: RatingName, correct: bool, now: datetime
    ) -> tuple[ReciteReview, ReciteCard] | None:
        """Schedule the card with `rating` at `now` and record the review; None when the card is gone."""

        def run(s: Session) -> tuple[ReciteReview, ReciteCard] | None:
            card = s.exec(select(ReciteCard).where(ReciteCard.id == card_id, ReciteCard.person_id == person_id)).first()
            if card is None:
                return None
            before, reviews = card.state, card.reviews  # read before the UPDATE syncs the loaded card
            after = review(before, rating, now)
            moved = s.execute(
                update(ReciteCard)
                .where(col(ReciteCard.id) == card_id, col(ReciteCard.reviews) == reviews)
                .values(state=after.state, due=after.due, reviews=reviews + 1)
            )
            if not getattr(moved, "rowcount", 0):
                s.rollback()
                return None
            row = ReciteReview(
                card_id=card_id,
                person_id=person_id,
                rating=rating,
                correct=correct,
                reviewed_at=now,
                before=before,
                due=after.due,
            )
            s.add(row)
            s.commit()
            card.state, card.due, card.reviews = after.state, after.due, reviews + 1
            return row, card

        return await self._run(run)

    async def latest_review(self, person_id: int) -> ReciteReview | None:
        query = (
            select(ReciteReview)
            .where(ReciteReview.person_id == person_id)
            .order_by(col(ReciteReview.id).desc())
            .limit(1)
        )
        return await self._run(lambda s: s.exec(query).first())

    async def rerate(self, person_id: int, review_id: int, rating: RatingName) -> ReciteReview | None:
        """Change the rating of the person's newest review of a card (from the state before it, at
        its time); None when it is not that person's, or the card was reviewed again since."""

        def run(s: Session) -> ReciteReview | None:
            row = s.get(ReciteReview, review_id)
            if row is None or row.person_id != person_id:
                return None
            newest = s.exec(select(func.max(ReciteReview.id)).where(ReciteReview.card_id == row.card_id)).one()
            card = s.get(ReciteCard, row.card_id)
            if newest != review_id or card is None:
                return None
            after = review(row.before, rating, aware(row.reviewed_at))
            card.state, card.due = after.state, after.due
            row.rating, row.due = rating, after.due
            s.add(card)
            s.add(row)
            s.commit()
            return row

        return await self._run(run)

    async def stats(self, person_id: int, now: datetime, day_end: datetime, day_start: datetime) -> Stats:
        def run(s: Session) -> Stats:
            cards = select(func.count()).select_from(ReciteCard).where(ReciteCard.person_id == person_id)
            reviews = select(func.count()).select_from(ReciteReview).where(ReciteReview.person_id == person_id)
            recent = select(ReciteReview.correct).where(
                ReciteReview.person_id == person_id, col(ReciteReview.reviewed_at) >= now - timedelta(days=30)
            )
            answers = list(s.exec(recent))
            return Stats(
                cards=int(s.exec(cards).one()),
                due_now=int(s.exec(cards.where(col(ReciteCard.due) <= now)).one()),
                due_today=int(s.exec(cards.where(col(ReciteCard.due) < day_end)).one()),
                reviewed=int(s.exec(reviews).one()),
                reviewed_today=int(s.exec(reviews.where(col(ReciteReview.reviewed_at) >= day_start)).one()),
                retention=(sum(answers) / len(answers)) if answers else None,
            )

        return await self._run(run)

    # ---------------------------------------------------------------- reminders
    async def set_reminder(self, person_id: int, chat_key: str, at: str, zone: str, now: datetime) -> None:
        def run(s: Session) -> None:
            s.execute(delete(ReciteReminder).where(col(ReciteReminder.person_id) == person_id))
            s.add(ReciteReminder(person_id=person_id, chat_key=chat_key, at=at, zone=zone, since=now))
            s.commit()

        await self._run(run)

    async def reminder(self, person_id: int) -> ReciteReminder | None:
        return await self._run(lambda s: s.get(ReciteReminder, person_id))

    async def clear_reminder(self, person_id: int) -> bool:
        def run(s: Session) -> bool:
            gone = s.execute(delete(ReciteReminder).where(col(ReciteReminder.person_id) == person_id))
            s.commit()
            return bool(getattr(gone, "rowcount", 0))

        return await self._run(run)

    async def reminders(self) -> list[ReciteReminder]:
        return await self._run(lambda s: list(s.exec(select(ReciteReminder))))

    async def due_count(self, person_id: int, now: datetime) -> int:
        query = (
            select(func.count())
            .select_from(ReciteCard)
            .where(ReciteCard.person_id == person_id, col(ReciteCard.due) <= now)
        )
        return await self._run(lambda s: int(s.exec(query).one()))

    # ---------------------------------------------------------------- privacy and linking
    async def forget(self, person_id: int) -> int:
        """Delete every card, review, open card and reminder of the person; returns the cards deleted."""

        def run(s: Session) -> int:
            counts = [s.execute(delete(t).where(col(t.person_id) == person_id)) for t in TABLES]
            s.commit()
            return int(getattr(counts[0], "rowcount", 0))

        return await self._run(run)


def merge_person(s: Session, source: int, target: int) -> None:
    """`/link`: move the deck of `source` to `target` inside the linker's transaction. A passage both
    had keeps the target's card; the target's reminder wins."""
    theirs = set(s.exec(select(ReciteCard.passage_id).where(ReciteCard.person_id == target)))
    dupes = select(ReciteCard.id).where(ReciteCard.person_id == source, col(ReciteCard.passage_id).in_(theirs or {""}))
    dupe_ids = list(s.exec(dupes))
    if dupe_ids:
        s.execute(delete(ReciteReview).where(col(ReciteReview.card_id).in_(dupe_ids)))
        s.execute(delete(ReciteCard).where(col(ReciteCard.id).in_(dupe_ids)))
    s.execute(delete(ReciteOpen).where(col(ReciteOpen.person_id) == source))  # an open card is one chat's moment
    if s.get(ReciteReminder, target) is not None:
        s.execute(delete(ReciteReminder).where(col(ReciteReminder.person_id) == source))
    for table in (ReciteCard, ReciteReview, ReciteReminder):
        s.execute(update(table).where(col(table.person_id) == source).values(person_id=target))
