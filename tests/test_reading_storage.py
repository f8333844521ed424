"""Reading positions and bookmarks on SQLite and PostgreSQL (migration 0032_reading): per person,
idempotent, bounded, racing writers end with one row; account linking carries them over."""

from __future__ import annotations

import asyncio

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel

from core.memory.linking import AccountLinker
from core.storage import Storage, open_database
from core.storage import reading as reading_module
from tests.helpers_db import database_url, postgres_url  # noqa: F401


async def test_positions_and_bookmarks_per_person(database_url, monkeypatch):  # noqa: F811
    engine = open_database(database_url)
    try:
        with engine.connect() as conn:
            drift = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
        storage = Storage(engine)
        repo = storage.reading
        ann = await storage.identities.resolve("web", "ann")
        bob = await storage.identities.resolve("telegram", "42")
        assert await repo.position(ann) is None
        await asyncio.gather(*(repo.set_position(ann, f"lunyu:1.{i}") for i in range(1, 9)))  # racing writers
        await repo.set_position(ann, "lunyu:2.1")
        await repo.set_position(bob, "shijing:1")
        added = await asyncio.gather(*(repo.add_bookmark(ann, "lunyu:1.1") for _ in range(5)))
        await repo.add_bookmark(ann, "shijing:2")
        await repo.remove_bookmark(ann, "shijing:2")
        await repo.remove_bookmark(ann, "shijing:2")
        monkeypatch.setattr(reading_module, "MAX_BOOKMARKS", 2)
        assert await repo.add_bookmark(bob, "lunyu:1.1") and await repo.add_bookmark(bob, "lunyu:1.2")
        over = await repo.add_bookmark(bob, "lunyu:1.3")
        again = await repo.add_bookmark(bob, "lunyu:1.2")  # one already held: still fine
        positions = (await repo.position(ann), await repo.position(bob))
        marks = ([m for m, _ in await repo.bookmarks(ann)], [m for m, _ in await repo.bookmarks(bob)])
    finally:
        engine.dispose()
    assert drift == []
    assert all(added) and positions == ("lunyu:2.1", "shijing:1")
    assert marks == (["lunyu:1.1"], ["lunyu:1.1", "lunyu:1.2"])
    assert over is False and again is True


async def test_linking_accounts_merges_their_reading(database_url):  # noqa: F811
    engine = open_database(database_url)
    try:
        storage = Storage(engine)
        web = await storage.identities.resolve("web", "ann")
        tg = await storage.identities.resolve("telegram", "42")
        await storage.reading.add_bookmark(web, "lunyu:1.1")
        await storage.reading.add_bookmark(tg, "lunyu:1.1")
        await storage.reading.add_bookmark(tg, "shijing:3")
        await storage.reading.set_position(web, "lunyu:1.2")
        await storage.reading.set_position(tg, "lunyu:4.1")  # read later: wins
        linker = AccountLinker(engine)
        code = await linker.issue(web, "web:ann")
        result = await linker.redeem(tg, "telegram", "42", code)
        joined = await storage.identities.resolve("telegram", "42")
        marks = sorted(m for m, _ in await storage.reading.bookmarks(web))
        position, left = await storage.reading.position(web), await storage.reading.bookmarks(tg)
    finally:
        engine.dispose()
    assert result.status == "linked" and joined == web
    assert marks == ["lunyu:1.1", "shijing:3"] and position == "lunyu:4.1" and left == []
