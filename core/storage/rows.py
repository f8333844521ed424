"""Typed readings of SQLAlchemy results that its stubs leave loose.

`Session.execute(update(...))` is typed as `Result` though DML returns a `CursorResult` (which has
`rowcount`); SQLModel types a primary key `int | None` until the row is flushed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import CursorResult, Result


def affected(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE changed."""
    if not isinstance(result, CursorResult):
        raise TypeError(f"expected the result of an UPDATE or DELETE, got {type(result).__name__}")
    return result.rowcount


def row_id(value: int | None) -> int:
    """The primary key of a row that has been flushed (SQLModel types it optional before that)."""
    if value is None:
        raise ValueError("the row has no id yet: it was never flushed")
    return value
