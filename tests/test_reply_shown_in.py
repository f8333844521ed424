"""Where a reply is shown as a typed value with its own column, and one table for replies' footnotes:
the text form, and revision 0024_i21c moving rows written the old way (SQLite and PostgreSQL), back
and forth, after which a crash is still repaired and feedback still names the cited passages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

import core.guards.models  # noqa: F401
import core.memory.models  # noqa: F401
import core.schedule.models  # noqa: F401
from core.events import Citation
from core.shown_in import ShownIn
from core.storage import Storage, create_database_engine
from core.storage.migrate import alembic_config, current_revision, head_revision, upgrade
from core.storage.replies import Interrupted
from tests.helpers_db import postgres_url  # noqa: F401
from tests.helpers_engine import asked, sqlite_storage

WEB_FOOTNOTES = '[{"n": 1, "id": "lunyu:1.1", "ref": "《论语·学而》第1章"}]'
OLD_ROWS = [  # as the code before 0024 wrote them: where shown in `account` and reply_shown, references in reply_cited
    "INSERT INTO message (chat_key, person_id, account, speaker, role, text, level, status, trace_id, created_at) "
    "VALUES ('telegram:7', 1, 'telegram:42', '子路', 'user', '问', NULL, 'ok', 'dead', '2026-01-02 03:04:05'), "
    "('telegram:7', NULL, 'telegram:7:1001', '', 'assistant', '', NULL, 'streaming', 'dead', '2026-01-02 03:04:06'), "
    "('discord:9', NULL, 'discord:9:55', '', 'assistant', '器小', 0, 'ok', 'done', '2026-01-02 03:04:07'), "
    "('web:local/a', NULL, '', '', 'assistant', '学而', 0, 'ok', 'webt', '2026-01-02 03:04:08'), "
    "('telegram:5', NULL, '', '', 'assistant', '温故', 0, 'ok', 'late', '2026-01-02 03:04:09')",
    "INSERT INTO reply_shown (shown_in, trace_id, created_at) VALUES ('telegram:7:1001', 'dead', "
    "'2026-01-02 03:04:06'), ('discord:9:55', 'done', '2026-01-02 03:04:07'), ('telegram:5:9', 'late', "
    "'2026-01-02 03:04:09')",  # noted for reactions only: the reply row had left "streaming"
    "INSERT INTO reply_cited (trace_id, refs) VALUES "
    "('done', '《论语·八佾》第22章\n《论语·学而》第1章'), ('webt', '《论语·学而》第1章')",
    f"INSERT INTO reply_citations (trace_id, chat_key, data) VALUES ('webt', 'web:local/a', '{WEB_FOOTNOTES}')",
]


def test_the_text_form_is_written_and_read_in_one_place():
    assert ShownIn("telegram", "-100123", 5).format() == "telegram:-100123:5"
    assert str(ShownIn("telegram", "8/77")) == "telegram:8/77:"  # a forum topic, nothing shown yet
    for where in (ShownIn("discord", "9", 55), ShownIn("telegram", "8/77"), ShownIn("web", "local/a:b", 1)):
        assert ShownIn.parse(where.format()) == where
    assert ShownIn.chat_of("telegram:8/77") == ShownIn("telegram", "8/77")
    for bad in ("", "telegram", "telegram:7", ":7:1", "telegram:7:x"):
        with pytest.raises(ValueError):
            ShownIn.parse(bad)


async def test_a_malformed_stored_reference_counts_as_nothing_shown(tmp_path):
    storage = sqlite_storage(tmp_path)
    await asked(storage, "telegram:7", "t1")
    with storage.engine.begin() as conn:
        conn.execute(text("UPDATE message SET shown_in = 'telegram:7:oops' WHERE trace_id = 't1'"))
    (cut,) = await storage.replies.close_interrupted()
    assert cut == Interrupted("telegram:7", "t1", None) and cut.where == ShownIn("telegram", "7")


async def test_a_reply_and_its_footnotes_are_stored_together(tmp_path):
    storage = sqlite_storage(tmp_path)
    await asked(storage, "telegram:7", "t1")
    cited = [Citation(1, "lunyu:3.22", "《论语·八佾》第22章", "管仲之器小哉")]
    await storage.replies.finish("telegram:7", "t1", "器小。[1]", 0, "ok", cited)
    assert await storage.citations.of(["t1", "nope"]) == {
        "t1": [{"n": 1, "id": "lunyu:3.22", "ref": "《论语·八佾》第22章"}]
    }
    await storage.feedback.record("t1", "telegram", "telegram:5", "👍")
    (entry,) = await storage.feedback.since(datetime(2000, 1, 1, tzinfo=UTC))
    assert entry.passages == ("《论语·八佾》第22章",) and entry.answer == "器小。[1]"


def _schema_diff(engine) -> list:
    with engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)


def _rows(engine, query: str) -> list[tuple]:
    with engine.connect() as conn:
        return [tuple(row) for row in conn.execute(text(query))]


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
async def test_0024_moves_old_rows_and_downgrade_restores_them(dialect, request, tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}" if dialect == "sqlite" else request.getfixturevalue("postgres_url")
    engine = create_database_engine(url)
    try:
        upgrade(engine, "0023_i23")
        with engine.begin() as conn:
            for statement in OLD_ROWS:
                conn.exec_driver_sql(statement)
        assert upgrade(engine).after == head_revision()
        assert _schema_diff(engine) == []
        assert not inspect(engine).has_table("reply_cited") and not inspect(engine).has_table("reply_shown")
        shown = "SELECT trace_id, role, account, shown_in FROM message ORDER BY id"
        assert _rows(engine, shown) == [
            ("dead", "user", "telegram:42", None),  # a person's account stays
            ("dead", "assistant", "", "telegram:7:1001"),
            ("done", "assistant", "", "discord:9:55"),
            ("webt", "assistant", "", None),
            ("late", "assistant", "", "telegram:5:9"),
        ]
        storage = Storage(engine)
        assert await storage.feedback.reply_at(ShownIn("telegram", "5", 9)) == "late"
        assert await storage.feedback.reply_at(ShownIn("discord", "9", 55)) == "done"
        assert await storage.citations.of(["done", "webt"]) == {
            "done": [
                {"n": 1, "id": "", "ref": "《论语·八佾》第22章"},
                {"n": 2, "id": "", "ref": "《论语·学而》第1章"},
            ],
            "webt": [{"n": 1, "id": "lunyu:1.1", "ref": "《论语·学而》第1章"}],  # the web's row kept as it was
        }
        (answer,) = await storage.chatlog.messages("web:local/a")
        assert answer.citations == [{"n": 1, "id": "lunyu:1.1", "ref": "《论语·学而》第1章"}]
        await storage.feedback.record("done", "discord", "discord:1", "👎")
        (entry,) = await storage.feedback.since(datetime(2000, 1, 1, tzinfo=UTC))
        assert entry.passages == ("《论语·八佾》第22章", "《论语·学而》第1章")
        # the crash repair still finds the frozen message of a reply written the old way
        assert await storage.replies.close_interrupted() == [
            Interrupted("telegram:7", "dead", ShownIn("telegram", "7", 1001))
        ]

        with engine.connect() as conn:
            command.downgrade(alembic_config(conn), "0023_i23")
            conn.commit()
        assert current_revision(engine) == "0023_i23"
        assert "shown_in" not in {c["name"] for c in inspect(engine).get_columns("message")}
        assert _rows(engine, "SELECT trace_id, account FROM message WHERE role = 'assistant' ORDER BY id") == [
            ("dead", "telegram:7:1001"),
            ("done", "discord:9:55"),
            ("webt", ""),
            ("late", "telegram:5:9"),
        ]
        assert _rows(engine, "SELECT shown_in, trace_id FROM reply_shown ORDER BY trace_id") == [
            ("telegram:7:1001", "dead"),
            ("discord:9:55", "done"),
            ("telegram:5:9", "late"),
        ]
        assert _rows(engine, "SELECT trace_id, refs FROM reply_cited ORDER BY trace_id") == [
            ("done", "《论语·八佾》第22章\n《论语·学而》第1章"),
            ("webt", "《论语·学而》第1章"),
        ]
        assert _rows(engine, "SELECT trace_id, chat_key FROM reply_citations") == [("webt", "web:local/a")]
    finally:
        engine.dispose()
