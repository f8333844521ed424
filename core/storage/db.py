"""Engine creation: any SQLAlchemy URL; SQLite gets its folder created, WAL mode and a busy timeout."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import structlog
from sqlalchemy import Engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool
from sqlmodel import SQLModel, create_engine

from core.storage import models  # noqa: F401  (registers the tables on SQLModel.metadata)

log = structlog.get_logger(__name__)


SQLITE_BUSY_TIMEOUT_S = 5.0


def create_engine_and_tables(url: str, *, echo: bool = False, busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S) -> Engine:
    """Create the engine for `url` and every table that does not exist yet.

    SQLite files get their parent folder created, WAL journaling, foreign keys on and a busy
    timeout (`busy_timeout_s`, 5 s: how long one statement waits for another connection's lock
    before "database is locked"; `MessageRepo.add` retries past it); connections may be used from
    worker threads (the repositories run in `asyncio.to_thread`). An in-memory SQLite URL shares one
    connection so every thread sees the same database.
    """
    parsed = make_url(url)
    kwargs: dict = {"echo": echo}
    if parsed.get_backend_name() == "sqlite":
        # the driver's own timeout and the pragma below say the same, so neither undercuts the other
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": busy_timeout_s}
        database = parsed.database or ""
        if database in ("", ":memory:") or database.startswith("file::memory:"):
            kwargs["poolclass"] = StaticPool
        else:
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", partial(_sqlite_pragmas, busy_timeout_ms=max(0, int(busy_timeout_s * 1000))))
    SQLModel.metadata.create_all(engine)
    log.info("storage_ready", backend=parsed.get_backend_name(), database=_safe_name(parsed))
    return engine


def _sqlite_pragmas(dbapi_connection, _record, *, busy_timeout_ms: int) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")  # first: WAL switching may wait too
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _safe_name(parsed) -> str:
    """The database name without credentials, for logs."""
    return parsed.database or ""
