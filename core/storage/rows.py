"""Typed readings of SQLAlchemy results that its stubs leave loose, the dialect behind a session, and
a fixed IN list for statements built once.

`Session.execute(update(...))` is typed as `Result` though DML returns a `CursorResult` (which has
`rowcount`); SQLModel types a primary key `int | None` until the row is flushed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import ColumnElement, Connection, CursorResult, Result, literal
from sqlalchemy.orm import Session


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


def dialect_of(s: Session | Connection) -> str:
    """The database's dialect name ("sqlite", "postgresql" …) behind a session or a connection."""
    return s.dialect.name if isinstance(s, Connection) else s.get_bind().dialect.name


def among(column: Any, values: Iterable[str]) -> ColumnElement[bool]:
    """`column IN (…)` over a fixed list, one bound parameter per value: a list of plain values is an
    "expanding" parameter, which SQLAlchemy splices into the compiled SQL anew at every execution."""
    return column.in_([literal(v) for v in values])
