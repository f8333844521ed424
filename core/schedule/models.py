"""Tables of scheduled posts: claims (exactly once per chat, kind and local date), the passages each
chat has been shown (the rotation) and the digest's short-lived store of group messages."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from core.storage.models import utcnow


class ScheduleClaim(SQLModel, table=True):
    """One scheduled post of one chat on one local date, claimed by exactly one process.

    Attributes:
        kind: "daily" (the passage), "digest" or "quiz" (a group's daily quiz, core/quiz).
        local_date: the chat's local date the post belongs to (the uniqueness key with chat and kind).
        due_at: the instant it was due (UTC).
        status: "claimed" while a process works on it, then "sent", "skipped" (missed the grace
            window, or nothing to say), "gone" (the bot was removed: schedule switched off) or "failed".
        owner: `host:pid` of the process that claimed it (logs, takeover after a crash).
        passage_id: the passage a daily post showed.
    """

    __tablename__ = "schedule_claim"
    __table_args__ = (UniqueConstraint("chat_key", "kind", "local_date", name="uq_schedule_claim_chat_kind_date"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_key: str = Field(max_length=200)
    kind: str = Field(max_length=16)
    local_date: date
    due_at: datetime
    status: str = Field(default="claimed", max_length=16)
    owner: str = Field(default="", max_length=64)
    claimed_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    passage_id: str | None = Field(default=None, max_length=32)
    detail: str = Field(default="", max_length=200)


class ScheduleSeen(SQLModel, table=True):
    """A passage a chat's daily post has shown in the current round (cleared when all were shown)."""

    __tablename__ = "schedule_seen"

    chat_key: str = Field(primary_key=True, max_length=200)
    passage_id: str = Field(primary_key=True, max_length=32)
    seen_at: datetime = Field(default_factory=utcnow)


class DigestMessage(SQLModel, table=True):
    """A group message kept for the daily digest: only while digest is on, at most 48 hours."""

    __tablename__ = "digest_message"
    __table_args__ = (Index("ix_digest_message_chat_key_created_at", "chat_key", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_key: str = Field(max_length=200)
    speaker: str = Field(default="", max_length=256)
    text: str
    created_at: datetime = Field(default_factory=utcnow)
