"""SQL table for token usage per person per day (on SQLModel.metadata)."""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel


class GuardUsage(SQLModel, table=True):
    """Tokens one person used on one day (the day in the usage store's time zone)."""

    __tablename__ = "guard_usage"
    __table_args__ = (UniqueConstraint("person_id", "day", name="uq_guard_usage_person_day"),)

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(index=True)
    day: str = Field(index=True, max_length=10)  # YYYY-MM-DD
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
