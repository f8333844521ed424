"""Engine creation: any SQLAlchemy URL, schema by the migrations (`core.storage.migrate`).

SQLite gets its folder created, WAL mode and a busy timeout; PostgreSQL (`postgresql+psycopg://…`,
psycopg 3) gets a pool that checks connections before use and sessions in UTC.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import structlog
from sqlalchemy import Engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool
from sqlmodel import create_engine

from core.storage import guard as _guard  # noqa: F401  (NUL and length guard on every insert/update)
from core.storage import models  # noqa: F401  (registers the tables on SQLModel.metadata)
from core.storage.migrate import upgrade

log = structlog.get_logger(__name__)


SQLITE_BUSY_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class PoolConfig:
    """Connection pool of a server database (ignored for SQLite).

    Attributes:
        size: connections kept open per process.
        max_overflow: extra connections opened under load, closed when returned.
        timeout_s: how long a request waits for a free connection before failing.
        recycle_s: connections older than this are replaced (load balancers drop idle ones).
    """

    size: int = 5
    max_overflow: int = 5
    timeout_s: float = 10.0
    recycle_s: int = 1800


def create_database_engine(
    url: str,
    *,
    echo: bool = False,
    busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S,
    pool: PoolConfig | None = None,
) -> Engine:
    """Create the engine for `url`; creates no table (see `open_database`).

    SQLite files get their parent folder created, WAL journaling, foreign keys on and a busy
    timeout (`busy_timeout_s`, 5 s: how long one statement waits for another connection's lock
    before "database is locked"; `MessageRepo.add` retries past it); connections may be used from
    worker threads (the repositories run in `asyncio.to_thread`). An in-memory SQLite URL shares one
    connection so every thread sees the same database. Server databases get `pool`.
    """
    parsed = make_url(url)
    kwargs: dict = {"echo": echo}
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        # the driver's own timeout and the pragma below say the same, so neither undercuts the other
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": busy_timeout_s}
        database = parsed.database or ""
        if database in ("", ":memory:") or database.startswith("file::memory:"):
            kwargs["poolclass"] = StaticPool
        else:
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    else:
        p = pool or PoolConfig()
        kwargs.update(
            pool_size=p.size,
            max_overflow=p.max_overflow,
            pool_timeout=p.timeout_s,
            pool_recycle=p.recycle_s,
            pool_pre_ping=True,
        )
        if backend == "postgresql":
            # the session speaks UTC (logs, now()); options already in the URL (search_path …) are kept
            given = parsed.query.get("options", "")
            given = " ".join(given) if isinstance(given, tuple) else given
            options = " ".join(filter(None, [given, "-c timezone=UTC"]))
            kwargs["connect_args"] = {"options": options}
    engine = create_engine(url, **kwargs)
    if backend == "sqlite":
        event.listen(engine, "connect", partial(_sqlite_pragmas, busy_timeout_ms=max(0, int(busy_timeout_s * 1000))))
    return engine


def open_database(
    url: str,
    *,
    echo: bool = False,
    busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S,
    pool: PoolConfig | None = None,
    migrate: bool = True,
) -> Engine:
    """Create the engine and bring the schema to the newest revision (locked; see `migrate.upgrade`).

    With `migrate=False` the schema is left alone (a release step ran `fuzi db upgrade`).
    """
    engine = create_database_engine(url, echo=echo, busy_timeout_s=busy_timeout_s, pool=pool)
    parsed = make_url(url)
    if migrate:
        try:
            result = upgrade(engine)
        except Exception:
            engine.dispose()
            raise
        revision = result.after
    else:
        revision = None
    log.info("storage_ready", backend=parsed.get_backend_name(), database=_safe_name(parsed), revision=revision)
    return engine


# The name callers used when tables came from create_all; it now migrates instead.
create_engine_and_tables = open_database


def _sqlite_pragmas(dbapi_connection, _record, *, busy_timeout_ms: int) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")  # first: WAL switching may wait too
        _switch_to_wal(cursor, busy_timeout_ms / 1000)
        # WAL + NORMAL: a commit survives the process being killed (it is in the WAL once written);
        # only a power loss may roll back the last commits. FULL fsyncs every commit (the inbox's
        # write before a webhook's 200 took a multiple of the time: docs/performance.md).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _switch_to_wal(cursor, wait_s: float) -> None:
    """`PRAGMA journal_mode=WAL`, retried while another connection holds the write lock.

    The switch reads the file, then needs it exclusively; SQLite answers "database is locked" at
    once, without its busy handler, when another connection holds or waits for the write lock
    meanwhile (its deadlock rule), as when several processes open a fresh database together. So
    the busy timeout is kept here by hand.
    """
    deadline = time.monotonic() + wait_s
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _safe_name(parsed) -> str:
    """The database name without credentials, for logs."""
    return parsed.database or ""
