"""What PostgreSQL would reject never reaches it: NUL characters and strings over a column's length.

One ORM hook for every SQLModel table (storage, memory, guards), so the same row is stored the same
way on SQLite (which accepts both silently) and PostgreSQL (which raises): NUL (U+0000) is
replaced by U+FFFD, and a value longer than its `VARCHAR(n)` is cut to `n` characters (logged with
the table and column, never the value). Unbounded text columns are only cleaned of NUL.
"""

from __future__ import annotations

import structlog
from sqlalchemy import String, TypeDecorator, event
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
    for column in table.columns:
        kind = column.type.impl if isinstance(column.type, TypeDecorator) else column.type  # sqlmodel's AutoString
        if not isinstance(kind, String):
            continue
        value = getattr(target, column.key, None)
        if not isinstance(value, str):
            continue
        fitted = clean(value, kind.length)
        if fitted != value:
            if kind.length is not None and len(value) > kind.length:
                log.warning(
                    "storage_value_truncated", table=table.name, column=column.key, length=len(value), limit=kind.length
                )
            setattr(target, column.key, fitted)


def fit_row(target: object) -> None:
    """The same cleaning for a row written without the ORM's unit of work (a Core INSERT)."""
    _fit_row(None, None, target)


event.listen(Mapper, "before_insert", _fit_row)  # every mapped class: all tables are SQLModel ones
event.listen(Mapper, "before_update", _fit_row)

__all__ = ["clean", "fit_row"]
