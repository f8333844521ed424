"""The SQL database: its engine and pool from settings, and a start that waits for a server that is down."""

from __future__ import annotations

import asyncio

import structlog
from sqlalchemy.exc import OperationalError

from adapters.common.startup import PlatformStatus
from bot.errors import StartupError
from bot.settings import Settings
from core.storage import PoolConfig, open_database

log = structlog.get_logger(__name__)


def database_engine(settings: Settings, *, migrate: bool | None = None):
    """The SQL engine of FUZI_DATABASE_URL with its pool; the schema upgraded unless told not to."""
    d = settings.database
    pool = PoolConfig(size=d.pool_size, timeout_s=d.pool_timeout_s)
    return open_database(settings.db_url, pool=pool, migrate=d.migrate_on_start if migrate is None else migrate)


STORAGE_RETRY_MAX_S = 30.0
"""The longest wait between two attempts to reach a database server that is down at start."""


async def open_storage(settings: Settings, status: PlatformStatus | None = None, sleep=asyncio.sleep):
    """`database_engine` for a process that starts: a database server that cannot be reached is one
    log line per attempt (no traceback), retried with backoff (1 s doubling to 30 s) until it answers;
    ``status`` says "storage": "unreachable" meanwhile (/readyz 503). A SQLite file that cannot be
    opened is a configuration error: one line, and the process stops."""
    wait, attempt = 1.0, 0
    while True:
        attempt += 1
        try:
            sql = await asyncio.to_thread(database_engine, settings)
        except OperationalError as exc:
            detail = (str(exc.orig or exc).strip().splitlines() or [""])[0][:200]
            if settings.db_url.startswith("sqlite"):
                raise StartupError(f"cannot open the database FUZI_DATABASE_URL: {detail}") from None
            if status is not None:
                status.set("storage", "unreachable")
            log.warning(
                "storage_unreachable",
                attempt=attempt,
                error=type(exc.orig or exc).__name__,
                detail=detail,
                retry_in_s=wait,
            )
            await sleep(wait)
            wait = min(wait * 2, STORAGE_RETRY_MAX_S)
            continue
        if status is not None:
            status.set("storage", "ok")
        if attempt > 1:
            log.info("storage_reached", attempts=attempt)
        return sql
