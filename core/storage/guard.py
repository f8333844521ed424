"""What PostgreSQL would reject never reaches it: NUL characters and strings over a column's length.

One ORM hook for every SQLModel table (storage, memory, guards), so the same row is stored the same
way on SQLite (which accepts both silently) and PostgreSQL (which raises): NUL (U+0000) is
replaced by U+FFFD, and a value longer than its `VARCHAR(n)` is cut to `n` characters (logged with
the table and column, never the value). Unbounded text columns are only cleaned of NUL.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import structlog
from sqlalchemy import String, Table, TypeDecorator, event
from sqlalchemy.orm import Mapper

log = structlog.get_logger(__name__)

NUL = "\x00"
REPLACEMENT = "\ufffd"


def clean(value: str, limit: int | None) -> str:
    """`value` without NUL and at most `limit` characters (None: any length)."""
    if NUL in value:
        value = value.replace(NUL, REPLACEMENT)
    if limit is not None and len(value) > limit:
        value = value[:limit]
    return value


def _fit_row(_mapper, _connection, target) -> None:
    table = getattr(target, "__table__", None)
    if table is None:
        return
    for name, limit in _strings(table):
        value = getattr(target, name, None)
        if isinstance(value, str) and (fitted := _fitted(table, name, value, limit)) is not value:
            setattr(target, name, fitted)


def fit_row(target: object) -> None:
    """The same cleaning for a row written without the ORM's unit of work (a Core INSERT)."""
    _fit_row(None, None, target)


def fit_values(table: Table, values: dict[str, Any]) -> dict[str, Any]:
    """The same cleaning for a Core INSERT's values (column name → value) into `table`, in place."""
    for name, limit in _strings(table):
        value = values.get(name)
        if isinstance(value, str):
            values[name] = _fitted(table, name, value, limit)
    return values


@cache
def _strings(table: Table) -> tuple[tuple[str, int | None], ...]:
    """The string columns of `table` and their lengths (None: unbounded), looked up once per table."""
    out = []
    for column in table.columns:
        kind = column.type.impl if isinstance(column.type, TypeDecorator) else column.type  # sqlmodel's AutoString
        if isinstance(kind, String):
            out.append((column.key, kind.length))
    return tuple(out)


def _fitted(table: Table, name: str, value: str, limit: int | None) -> str:
    """`value` itself when it fits, else its cleaned copy (a cut is logged, never the value)."""
    if NUL not in value and (limit is None or len(value) <= limit):
        return value
    if limit is not None and len(value) > limit:
        log.warning("storage_value_truncated", table=table.name, column=name, length=len(value), limit=limit)
    return clean(value, limit)


event.listen(Mapper, "before_insert", _fit_row)  # every mapped class: all tables are SQLModel ones
event.listen(Mapper, "before_update", _fit_row)

__all__ = ["clean", "fit_row", "fit_values"]
