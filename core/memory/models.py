"""Memory tables: long-term facts, inferred profiles, per-chat summaries, account-link codes.

They live on the shared ``SQLModel.metadata``; the schema comes from the one migration history in
``core/storage/migrations`` (``core.storage.open_database``), never from ``create_all`` at run time.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from core.storage.models import utcnow as utcnow  # the storage layer's clock; re-exported for memory code


class Fact(SQLModel, table=True):
    """Something a person explicitly asked Fuzi to remember.

    scope: "private" (remembered in a private chat: never used or shown in a group) or "group"
    (remembered in a group: may be used anywhere). ``account``/``platform``/``chat_key`` record the
    source; ``embedding`` is a JSON list of floats made by the embedder named in ``model``.
    """

    __tablename__ = "memory_fact"

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(index=True)
    text: str
    scope: str = "private"
    platform: str = ""
    account: str = ""
    chat_key: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    embedding: str = "[]"
    model: str = ""


class Profile(SQLModel, table=True):
    """The inferred profile of a person as a JSON object (addressing, level, interests, language).

    extracted_upto: the id of the person's newest question already sent to the profile extraction;
    their questions after it (in any chat) wait for the next batch (core/memory/profile.py).
    """

    __tablename__ = "memory_profile"

    person_id: int = Field(primary_key=True)
    data: str = "{}"
    extracted_upto: int = 0
    updated_at: datetime = Field(default_factory=utcnow)


class ChatMemory(SQLModel, table=True):
    """Per-chat short-term state.

    summary: the running summary of everything before the window, up to ``summarized_upto``
    (a message id). window_start: messages with an id at or below it are hidden from the window
    and from summarising (set by /reset).
    """

    __tablename__ = "memory_chat"

    chat_key: str = Field(primary_key=True)
    summary: str = ""
    summarized_upto: int = 0
    window_start: int = 0
    updated_at: datetime = Field(default_factory=utcnow)


class LinkCode(SQLModel, table=True):
    """A one-time account-link code: only a salted hash of the code is stored."""

    __tablename__ = "memory_link_code"

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(index=True)
    account: str = ""
    salt: str
    code_hash: str
    expires_at: datetime
    used: bool = False


class LinkAttempt(SQLModel, table=True):
    """A wrong code entered by a person; counted to rate-limit guessing."""

    __tablename__ = "memory_link_attempt"

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(index=True)
    at: datetime = Field(default_factory=utcnow, index=True)
