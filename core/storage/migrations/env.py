"""Alembic environment for Fuzi's one migration history (every table: storage, memory, guards).

Run through `core.storage.migrate` (which passes an open connection in `config.attributes`) or
through the `alembic` command with `-c core/storage/migrations/alembic.ini` and FUZI_DATABASE_URL.
SQLite runs in batch mode (its ALTER TABLE is too small for most changes).
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine
from sqlmodel import SQLModel

import core.guards.models  # noqa: F401  (registers guard_usage)
import core.memory.models  # noqa: F401  (registers the memory_* tables)
import core.quiz.models  # noqa: F401  (registers quiz, quiz_open, quiz_answer)
import core.recite.models  # noqa: F401  (registers recite_card, recite_review, recite_open, recite_reminder)
import core.schedule.models  # noqa: F401  (registers schedule_claim, schedule_seen, digest_message)
import core.storage.models  # noqa: F401  (registers person, account, chat, message)

target_metadata = SQLModel.metadata


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.config.get_main_option("sqlalchemy.url") or os.environ.get("FUZI_DATABASE_URL")
    if not url:
        raise SystemExit("set FUZI_DATABASE_URL (or sqlalchemy.url) to run alembic directly")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; run `fuzi db upgrade`")
main()
