"""Schema migrations on SQLite and a real PostgreSQL: fresh databases, databases made by the code
before migrations existed (taken over in place, every row kept), N processes starting together."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text
from sqlmodel import SQLModel

import core.guards.models  # noqa: F401
import core.memory.models  # noqa: F401
import core.quiz.models  # noqa: F401
import core.recite.models  # noqa: F401
import core.schedule.models  # noqa: F401
from core.memory.profile import ProfileStore
from core.storage import Storage, create_database_engine, open_database
from core.storage.migrate import current_revision, head_revision, packaged_head, upgrade
from tests.helpers_db import database_url, postgres_url  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).with_name("data")
TABLES = {
    "person",
    "account",
    "chat",
    "message",
    "memory_fact",
    "memory_profile",
    "memory_chat",
    "memory_link_code",
    "memory_link_attempt",
    "guard_usage",
}


def schema_diff(engine) -> list:
    with engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)


def load_legacy(engine, dialect: str) -> None:
    """Make the schema exactly as the pre-migration code did (frozen DDL) and fill it with rows."""
    lines = (DATA / f"legacy_schema_{dialect}.sql").read_text(encoding="utf-8").splitlines()
    ddl = "\n".join(line for line in lines if not line.startswith("--"))
    statements = [s.strip() for s in ddl.split(";") if s.strip()]
    rows = [
        "INSERT INTO person (id, created_at) VALUES (1, '2026-01-02 03:04:05'), (2, '2026-01-02 03:04:06')",
        "INSERT INTO account (id, platform, platform_user_id, person_id, display_name, created_at) VALUES "
        "(1, 'telegram', '42', 1, '子路', '2026-01-02 03:04:05'), (2, 'discord', '9', 2, 'Zigong', '2026-01-02 03:04:06')",
        "INSERT INTO chat (key, platform, is_group, skill, no_llm_noticed, created_at) VALUES "
        "('telegram:42', 'telegram', false, 'teaching', true, '2026-01-02 03:04:05')",
        "INSERT INTO message (id, chat_key, person_id, account, speaker, role, text, level, status, trace_id, created_at) VALUES "
        "(1, 'telegram:42', 1, 'telegram:42', '子路', 'user', '何为仁？', NULL, 'ok', 't1', '2026-01-02 03:04:05'), "
        "(2, 'telegram:42', NULL, '', '', 'assistant', '爱人。', 0, 'ok', 't1', '2026-01-02 03:04:07')",
        "INSERT INTO memory_fact (id, person_id, text, scope, platform, account, chat_key, created_at, embedding, model) VALUES "
        "(1, 1, 'likes the Book of Songs', 'private', 'telegram', 'telegram:42', 'telegram:42', '2026-01-02 03:04:05', '[0.1]', 'm')",
        "INSERT INTO memory_profile (person_id, data, updated_at) VALUES (1, '{\"level\": \"new\"}', '2026-01-02 03:04:05')",
        "INSERT INTO memory_chat (chat_key, summary, summarized_upto, window_start, updated_at) VALUES "
        "('telegram:42', 'asked about ren', 1, 0, '2026-01-02 03:04:05')",
        "INSERT INTO memory_link_code (id, person_id, account, salt, code_hash, expires_at, used) VALUES "
        "(1, 1, 'telegram:42', 's', 'h', '2026-01-02 03:14:05', false)",
        "INSERT INTO memory_link_attempt (id, person_id, at) VALUES (1, 2, '2026-01-02 03:04:05')",
        "INSERT INTO guard_usage (id, person_id, day, requests, prompt_tokens, completion_tokens) VALUES (1, 1, '2026-01-02', 3, 100, 50)",
    ]
    with engine.begin() as conn:
        for statement in statements + rows:
            conn.exec_driver_sql(statement)
        if dialect == "postgresql":  # as the old code left them after inserts through the ORM
            for table in (
                "person",
                "account",
                "message",
                "memory_fact",
                "memory_link_code",
                "memory_link_attempt",
                "guard_usage",
            ):
                conn.execute(text(f"SELECT setval('{table}_id_seq', (SELECT max(id) FROM {table}))"))


def counts(engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one() for t in sorted(TABLES)}


@pytest.mark.processes
def test_a_start_at_the_newest_revision_does_not_import_alembic(database_url):
    """The usual start reads the newest revision from the version files and the stored one in one
    query; Alembic is imported only when there is something to do."""
    assert packaged_head() == head_revision()
    open_database(database_url).dispose()  # migrated to the newest revision
    code = (
        "import sys; from core.storage import open_database; open_database(sys.argv[1]).dispose(); "
        "print('alembic' in sys.modules)"
    )
    child = subprocess.run(
        [sys.executable, "-c", code, database_url],
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0 and child.stdout.splitlines()[-1] == "False", child.stdout + child.stderr


async def test_fresh_database_gets_exactly_the_models_schema(database_url):
    engine = open_database(database_url)
    try:
        assert current_revision(engine) == head_revision()
        assert schema_diff(engine) == []
        again = upgrade(engine)
        assert not again.changed and again.after == head_revision()
    finally:
        engine.dispose()


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
async def test_database_made_before_migrations_upgrades_in_place(dialect, request, tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}" if dialect == "sqlite" else request.getfixturevalue("postgres_url")
    engine = create_database_engine(url)
    try:
        load_legacy(engine, dialect)
        before = counts(engine)
        assert current_revision(engine) is None and sum(before.values()) == 13
        result = upgrade(engine)
        assert result.before is None and result.after == head_revision()
        assert counts(engine) == before
        assert schema_diff(engine) == []
        storage = Storage(engine)  # the old rows work through today's code, and new ones follow them
        assert await storage.identities.resolve("telegram", "42") == 1
        assert [m.text for m in await storage.messages.recent("telegram:42", 10)] == ["何为仁？", "爱人。"]
        assert (await storage.settings.fresh("telegram:42")).skill == "teaching"
        new_id = await storage.messages.add("telegram:42", "user", "何为孝？", person_id=1)
        assert new_id == 3
        batch = ProfileStore(engine).batch(1, 10)  # what was said before is extracted already; the new waits
        assert (batch.upto, [e.question for e in batch.exchanges]) == (1, ["何为孝？"])
        assert await storage.identities.resolve("console", "new") == 3
    finally:
        engine.dispose()


_RACER = """
import sys, time
from core.storage.migrate import upgrade
from core.storage.db import create_database_engine
url, start = sys.argv[1], float(sys.argv[2])
engine = create_database_engine(url)
time.sleep(max(0.0, start - time.time()))
r = upgrade(engine)
print("RESULT", r.before, r.after, flush=True)
"""


@pytest.mark.processes
def test_processes_starting_together_migrate_once(database_url, tmp_path):
    import time

    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _RACER, database_url, str(time.time() + 4.0)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ | {"PYTHONPATH": str(ROOT)},
        )
        for _ in range(4)
    ]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=90)
        assert p.returncode == 0, err[-2000:]
        results.append(next(line.split()[1:] for line in out.splitlines() if line.startswith("RESULT")))
    head = head_revision()
    assert all(after == head for _before, after in results)
    assert sum(1 for before, _after in results if before == "None") >= 1
    engine = (
        create_engine(database_url) if not database_url.startswith("sqlite") else create_database_engine(database_url)
    )
    try:
        assert schema_diff(engine) == []
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar_one() == 1
    finally:
        engine.dispose()


@pytest.mark.processes
def test_cli_db_current_and_upgrade(tmp_path):
    env = os.environ | {
        "FUZI_HOME": str(tmp_path),
        "FUZI_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.sqlite3'}",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("FUZI_DATABASE_MIGRATE_ON_START", None)

    def fuzi(*args):
        return subprocess.run(
            [sys.executable, "-m", "bot", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )

    behind = fuzi("db", "current")
    assert behind.returncode == 1 and "(no revision)" in behind.stdout and "fuzi db upgrade" in behind.stdout
    up = fuzi("db", "upgrade")
    assert up.returncode == 0 and f"-> {head_revision()}" in up.stdout, up.stderr
    now = fuzi("db", "current")
    assert now.returncode == 0 and now.stdout.strip() == f"{head_revision()} (newest)"
    assert fuzi("db", "upgrade").stdout.strip() == f"already at {head_revision()} (newest)"
