"""Schema migrations: upgrade to the newest revision behind a lock, read the current revision.

Every table (storage, memory, guards) comes from one Alembic history in `core/storage/migrations`;
nothing calls `create_all` at run time. Many processes may start together: PostgreSQL takes a
session advisory lock (one per schema), a SQLite file takes an exclusive `flock` on a lock file beside
it, so exactly one process migrates and the others wait, then find the schema already at head.
A database made by the code before migrations existed (tables, no `alembic_version`) is taken over
in place by the first revision, which creates only what is missing.

A start whose database is already at the newest revision does not import Alembic (0.1–0.25 s of a
2-core machine's ~3 s warm start): the newest revision is read from the version files' `revision` /
`down_revision` lines and the stored one with one query; anything else takes Alembic's path.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.engine import make_url

if TYPE_CHECKING:
    from alembic.config import Config

log = structlog.get_logger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
LOCK_NAME = "fuzi.migrate"


@dataclass(frozen=True)
class UpgradeResult:
    """What `upgrade` did: the revision before (None: empty or pre-migration database) and after."""

    before: str | None
    after: str | None
    waited_s: float

    @property
    def changed(self) -> bool:
        return self.before != self.after


_REVISION_LINE = re.compile(r'^(revision|down_revision)(?:: [^=]+)? = (?:"([^"]+)"|None)\s*$', re.MULTILINE)


def alembic_config(connection: Connection | None = None) -> Config:
    """The Alembic config for the packaged migrations; `connection` is used instead of a URL."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def head_revision() -> str | None:
    """The newest revision of the packaged history."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


@lru_cache(maxsize=1)
def packaged_head() -> str | None:
    """The newest revision read from the version files without Alembic: the one revision no file
    names as its `down_revision`; None when that is not exactly one (a branch: Alembic decides)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
        for key, value in _REVISION_LINE.findall(path.read_text(encoding="utf-8")):
            (revisions if key == "revision" else parents).add(value)
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (None: empty, or made before migrations existed)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _stored_revision(engine: Engine) -> str | None:
    """`current_revision` in one query, without Alembic: the one row of `alembic_version` (None
    without that table, or with other than one row)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return rows[0] if len(rows) == 1 else None


def upgrade(engine: Engine, revision: str = "head") -> UpgradeResult:
    """Upgrade the database to `revision` (default the newest) unless it is there already.

    Safe when several processes call it at once: the work runs under the lock described above,
    and the revision is read again once the lock is held.
    """
    if revision == "head" and (head := packaged_head()) is not None and _stored_revision(engine) == head:
        return UpgradeResult(head, head, 0.0)  # the usual start: no Alembic import
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    target = head_revision() if revision == "head" else revision
    before = current_revision(engine)
    if before == target:
        return UpgradeResult(before, before, 0.0)
    started = time.monotonic()
    with _locked_connection(engine) as conn:
        waited = time.monotonic() - started
        before = MigrationContext.configure(conn).get_current_revision()
        conn.commit()
        if before != target:
            command.upgrade(alembic_config(conn), revision)
            conn.commit()
            log.info(
                "db_migrated",
                revision_from=before,
                revision_to=target,
                waited_s=round(waited, 3),
                backend=engine.dialect.name,
            )
    return UpgradeResult(before, current_revision(engine), waited)


@contextlib.contextmanager
def _locked_connection(engine: Engine) -> Iterator[Connection]:
    name = engine.dialect.name
    with engine.connect() as conn:
        if name == "postgresql":
            key = conn.execute(text("SELECT hashtext(:n || current_schema())"), {"n": LOCK_NAME}).scalar_one()
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
            conn.commit()
            try:
                yield conn
            finally:
                conn.rollback()
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                conn.commit()
        elif name == "sqlite":
            with _sqlite_file_lock(engine):
                yield conn
        else:  # other backends: no cross-process lock known; one process should run `fuzi db upgrade`
            log.warning("db_migrate_unlocked", backend=name)
            yield conn


@contextlib.contextmanager
def _sqlite_file_lock(engine: Engine) -> Iterator[None]:
    database = make_url(str(engine.url)).database or ""
    if database in ("", ":memory:") or database.startswith("file::memory:"):
        yield  # one process owns an in-memory database
        return
    import fcntl  # POSIX; the embedded default runs one process anyway

    lock_path = Path(database).expanduser().with_name(Path(database).name + ".migrate-lock")
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
