"""Storage: tables are created, identities resolve once, skills persist, messages keep their order."""

from __future__ import annotations

import asyncio
import sqlite3

from sqlmodel import Session, select

from core.storage import Account, Storage, create_engine_and_tables
from tests.helpers_engine import sqlite_storage


async def test_sqlite_file_in_new_folder_uses_wal(tmp_path):
    path = tmp_path / "deep" / "home" / "fuzi.sqlite3"
    storage = Storage(create_engine_and_tables(f"sqlite:///{path}"))
    await storage.messages.add("console:c", "user", "仁")
    assert path.exists()
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


async def test_in_memory_url_is_shared_across_worker_threads():
    storage = Storage(create_engine_and_tables("sqlite://"))
    ids = await asyncio.gather(*(storage.messages.add("console:c", "user", f"m{i}") for i in range(5)))
    assert sorted(ids) == [1, 2, 3, 4, 5]
    assert await storage.messages.count("console:c") == 5


async def test_resolve_is_stable_and_updates_display_name(tmp_path):
    storage = sqlite_storage(tmp_path)
    first = await storage.identities.resolve("telegram", "42", "Zilu")
    again = await storage.identities.resolve("telegram", "42", "Zhong You")
    other = await storage.identities.resolve("discord", "42", "Zilu")
    assert first == again and other != first
    account = await storage.identities.find("telegram", "42")
    assert account.display_name == "Zhong You"


async def test_concurrent_first_sightings_create_one_account(tmp_path):
    storage = sqlite_storage(tmp_path)
    people = await asyncio.gather(*(storage.identities.resolve("console", "yan", "Yan Hui") for _ in range(8)))
    assert len(set(people)) == 1
    with Session(storage.engine) as s:
        assert len(list(s.exec(select(Account)))) == 1


async def test_linking_moves_an_account_to_another_person(tmp_path):
    storage = sqlite_storage(tmp_path)
    tg = await storage.identities.resolve("telegram", "1", "Zigong")
    dc = await storage.identities.resolve("discord", "9", "Zigong")
    assert await storage.identities.set_person("discord", "9", tg) is True
    assert await storage.identities.resolve("discord", "9") == tg
    assert {(a.platform, a.platform_user_id) for a in await storage.identities.accounts(tg)} == {
        ("telegram", "1"),
        ("discord", "9"),
    }
    assert await storage.identities.set_person("discord", "unknown", dc) is False


async def test_skill_and_no_llm_notice_are_per_chat(tmp_path):
    storage = sqlite_storage(tmp_path)
    await storage.settings.ensure("console:a", "console", False)
    assert (await storage.settings.fresh("console:a")).skill is None
    await storage.chats.set_skill("console:a", "poetry")
    await storage.chats.set_skill("telegram:-100", "debate", is_group=True)  # created on the fly
    assert (await storage.settings.fresh("console:a")).skill == "poetry"
    assert (await storage.settings.ensure("telegram:-100", "telegram", True)).skill == "debate"
    claims = await asyncio.gather(*(storage.chats.claim_no_llm_notice("console:a") for _ in range(4)))
    assert claims.count(True) == 1
    assert await storage.chats.claim_no_llm_notice("console:b") is False  # unknown chat: nothing to claim


async def test_recent_window_filters_and_keeps_order(tmp_path):
    storage = sqlite_storage(tmp_path)
    ids = []
    for i in range(6):
        ids.append(
            await storage.messages.add(
                "console:c",
                "user" if i % 2 == 0 else "assistant",
                f"m{i}",
                status="busy" if i == 4 else "ok",
                level=None if i % 2 == 0 else 0,
            )
        )
    await storage.messages.add("console:other", "user", "elsewhere")
    assert [m.text for m in await storage.messages.recent("console:c", 3)] == ["m3", "m4", "m5"]
    assert [m.text for m in await storage.messages.recent("console:c", 3, statuses={"ok"})] == ["m2", "m3", "m5"]
    assert [m.text for m in await storage.messages.recent("console:c", 10, after_id=ids[3])] == ["m4", "m5"]
    assert [m.text for m in await storage.messages.recent("console:c", 10, before_id=ids[2])] == ["m0", "m1"]
    assert await storage.messages.count("console:c", role="assistant") == 3
    assert await storage.messages.delete_chat("console:c") == 6
    assert await storage.messages.count("console:other") == 1


async def test_messages_by_person_span_chats(tmp_path):
    storage = sqlite_storage(tmp_path)
    person = await storage.identities.resolve("console", "u")
    await storage.messages.add("console:a", "user", "一", person_id=person)
    await storage.messages.add("console:b", "user", "二", person_id=person)
    await storage.messages.add("console:b", "assistant", "答")
    assert [m.text for m in await storage.messages.by_person(person, 10)] == ["一", "二"]


def test_a_fresh_database_turns_to_wal_while_another_connection_writes_to_it(tmp_path):
    """Several processes opening a fresh file together: one writes (rollback journal) while another
    switches to WAL; SQLite refuses the switch at once, its busy timeout unused, until the write ends."""
    import threading

    path = tmp_path / "fresh.sqlite3"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE t (x)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO t VALUES (1)")
    threading.Timer(0.3, lambda: writer.execute("COMMIT")).start()
    engine = create_engine_and_tables(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("SELECT count(*) FROM t").scalar() == 1
    finally:
        engine.dispose()
        writer.close()
