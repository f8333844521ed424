"""Tables of recitation: each person's cards, their reviews, the card open in a chat, the reminder.

Keyed by the person id memory uses (core/memory/linking.py), so a deck follows the person across
linked accounts (`/link` moves the rows: `merge_person`). `/forget all` deletes every row of the person.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from core.storage.models import utcnow


class ReciteCard(SQLModel, table=True):
    """One passage in one person's deck.

    Attributes:
        state: the `fsrs` library's card (`Card.to_dict()`, JSON): stability, difficulty, step …
        due: when it is due next (UTC), the same as the state's own.
        reviews: how often it was reviewed (the cloze's seed: each review shows another line).
    """

    __tablename__ = "recite_card"
    __table_args__ = (UniqueConstraint("person_id", "passage_id", name="uq_recite_card_person_passage"),)

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(index=True)
    passage_id: str = Field(max_length=32)
    added_at: datetime = Field(default_factory=utcnow)
    due: datetime = Field(default_factory=utcnow, index=True)
    state: str
    reviews: int = 0


class ReciteReview(SQLModel, table=True):
    """One answer to one card: its rating, right or wrong, and the card's state before it (so the
    rating can still be changed with the buttons: `again`/`hard`/`good`/`easy`)."""

    __tablename__ = "recite_review"

    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(index=True)
    person_id: int = Field(index=True)
    rating: str = Field(max_length=8)
    correct: bool
    reviewed_at: datetime = Field(default_factory=utcnow)
    before: str
    due: datetime


class ReciteOpen(SQLModel, table=True):
    """The card waiting for its answer in one chat (one per person and chat: a new /recite replaces it)."""

    __tablename__ = "recite_open"

    chat_key: str = Field(primary_key=True, max_length=200)
    person_id: int = Field(primary_key=True)
    card_id: int
    line: str
    phrase: str
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime


class ReciteReminder(SQLModel, table=True):
    """A person's daily reminder: the DM it goes to, the local time and zone, when it was set."""

    __tablename__ = "recite_reminder"

    person_id: int = Field(primary_key=True)
    chat_key: str = Field(max_length=200)
    at: str = Field(max_length=5)
    zone: str = Field(max_length=64)
    since: datetime = Field(default_factory=utcnow)
