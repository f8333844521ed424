"""Read-modify-write and upserts that stay correct with several processes on one database."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import structlog
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

log = structlog.get_logger(__name__)
T = TypeVar("T")


def retry_on_conflict(fn: Callable[[], T], *, attempts: int = 3, **log_ids: object) -> T:
    """Run `fn` (one whole transaction: read, insert or update, commit) again when it loses an insert race.

    Two processes that both find no row and both insert it: the second gets a unique/primary-key
    violation (IntegrityError) and its transaction is rolled back; on the next try it finds the
    row and updates it. Pair with `SELECT … FOR UPDATE` on the read so updates are not lost either.
    """
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except IntegrityError:
            if attempt == attempts:
                raise
            log.info("storage_upsert_conflict_retry", attempt=attempt, **log_ids)
    raise AssertionError("unreachable")


def begin_write(session: Session) -> None:
    """Start `session`'s transaction as a writer, before it reads what it will change.

    SQLite: `BEGIN IMMEDIATE` takes the database's write lock now (waiting up to the busy
    timeout), so no other connection writes between this read and this write. Other backends:
    nothing here; lock the rows read with `with_for_update=True`.
    """
    if session.get_bind().dialect.name == "sqlite":
        session.connection().exec_driver_sql("BEGIN IMMEDIATE")
