"""Tables of group quizzes: each quiz posted, the one open quiz of a chat, and each person's answer.

A Telegram poll answer names the poll, never the chat: `quiz.poll_id` (unique) leads back to the
quiz and its chat. `quiz_answer` has one row per quiz and account (`uq_quiz_answer_quiz_account`):
duplicates, retractions and replicas cannot score an answer twice. `quiz_open` holds at most one row
per chat (its primary key): two `/quiz` at once, in one process or in two, open one quiz.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from core.storage.models import utcnow


class QuizRow(SQLModel, table=True):
    """One quiz as it was posted.

    Attributes:
        chat_key: `platform:chat_id` of the chat it was posted in.
        kind: "complete", "place" or "speaker" (core/quiz/generate.py).
        passage_id: the passage it asks about (its citation is in `explanation`).
        options: the options, joined by newlines (at most 4, none with a newline).
        correct: the index of the right option.
        poll_id: Telegram's poll id (None elsewhere, and until the poll is sent).
        message_id: the platform message that shows it (Discord: edited when it closes).
        origin: "command" (/quiz) or "daily" (the scheduled quiz).
        status: "posting" (claimed, not sent yet), "open", "closed" or "failed".
    """

    __tablename__ = "quiz"
    __table_args__ = (
        UniqueConstraint("poll_id", name="uq_quiz_poll_id"),
        Index("ix_quiz_chat_key_created_at", "chat_key", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_key: str = Field(max_length=200)
    kind: str = Field(max_length=16)
    passage_id: str = Field(max_length=32)
    question: str
    options: str
    correct: int
    explanation: str = Field(max_length=400)
    poll_id: str | None = Field(default=None, max_length=64)
    message_id: str | None = Field(default=None, max_length=64)
    origin: str = Field(default="command", max_length=16)
    status: str = Field(default="posting", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)
    closes_at: datetime
    closed_at: datetime | None = None


class QuizOpen(SQLModel, table=True):
    """The chat's open quiz (at most one: the primary key); removed when it closes or runs out."""

    __tablename__ = "quiz_open"

    chat_key: str = Field(primary_key=True, max_length=200)
    quiz_id: int
    closes_at: datetime


class QuizAnswer(SQLModel, table=True):
    """A person's one scored answer to one quiz.

    Attributes:
        account: `platform:user_id` (what /forget all deletes by).
        name: the name shown on the leaderboard (as the platform gave it at the time).
        option: the option chosen (the first one delivered; later ones are ignored).
        correct: whether it was the right option.
        day: the chat's local date of the answer (streaks count these).
    """

    __tablename__ = "quiz_answer"
    __table_args__ = (
        UniqueConstraint("quiz_id", "account", name="uq_quiz_answer_quiz_account"),
        Index("ix_quiz_answer_chat_key_answered_at", "chat_key", "answered_at"),
        Index("ix_quiz_answer_account", "account"),
    )

    id: int | None = Field(default=None, primary_key=True)
    quiz_id: int
    chat_key: str = Field(max_length=200)
    account: str = Field(max_length=200)
    name: str = Field(default="", max_length=256)
    option: int
    correct: bool
    day: date
    answered_at: datetime = Field(default_factory=utcnow)
