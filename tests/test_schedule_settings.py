"""The scheduler's view of /settings over the real repository (SQLite and PostgreSQL): who has a daily
passage or a digest, since when, script and skill; switching off after a 403 is logged as a change;
the digest listener answers /settings digest on|off and deletes at once."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from core.schedule.digest import SWITCHED_ON, Digest
from core.schedule.settings_view import SYSTEM_ACCOUNT, SettingsView
from core.schedule.store import DigestRepo
from core.skills import SkillRegistry
from core.storage import Storage, open_database
from core.storage.chat_settings import Daily
from core.types import Incoming
from tests.helpers_db import database_url, postgres_url  # noqa: F401


@pytest.fixture
def storage(database_url):  # noqa: F811
    engine = open_database(database_url)
    yield Storage(engine)
    engine.dispose()


async def test_scheduled_chats_with_their_zone_script_skill_and_since(storage):
    repo = storage.settings
    before = datetime.now(UTC)
    await repo.change("telegram:-1", "daily", Daily(time(8, 0), "Europe/Berlin"), account="telegram:1", is_group=True)
    await repo.change("telegram:-1", "script", "traditional", account="telegram:1")
    await repo.change("telegram:-1", "skill", "poetry", account="telegram:1")
    await repo.change("telegram:-2", "digest", True, account="telegram:1", is_group=True)
    await repo.change("telegram:3", "script", "traditional", account="telegram:3")  # no schedule
    view = SettingsView(repo, storage.engine)
    chats = {c.chat_key: c for c in await view.scheduled()}
    assert set(chats) == {"telegram:-1", "telegram:-2"}
    one = chats["telegram:-1"]
    assert (one.daily_at, one.zone, one.script, one.skill, one.is_group) == (
        time(8, 0),
        "Europe/Berlin",
        "traditional",
        "poetry",
        True,
    )
    assert one.daily_since is not None and one.daily_since >= before.replace(microsecond=0)
    two = chats["telegram:-2"]
    assert (two.daily_at, two.digest, two.script, two.daily_since) == (None, True, "simplified", None)
    assert await view.digest_on("telegram:-2") and not await view.digest_on("telegram:-1")


async def test_daily_off_after_a_403_is_a_logged_change(storage):
    repo = storage.settings
    await repo.change("telegram:-1", "daily", Daily(time(8, 0)), account="telegram:1", is_group=True)
    await repo.change("telegram:-1", "digest", True, account="telegram:1")
    view = SettingsView(repo, storage.engine)
    await view.daily_off("telegram:-1", "403 Forbidden: bot was kicked")
    now = await repo.fresh("telegram:-1")
    assert now.daily is None and now.digest is False
    history = await repo.history("telegram:-1")
    assert [(h.field, h.account) for h in history[:2]] == [("digest", SYSTEM_ACCOUNT), ("daily", SYSTEM_ACCOUNT)]
    assert await view.scheduled() == []


async def test_the_digest_listener_answers_and_deletes_at_once(storage):
    repo = storage.settings
    view = SettingsView(repo, storage.engine)
    store = DigestRepo(storage.engine)
    digest = Digest(store, view, None, SkillRegistry())
    asker = Incoming("telegram", "1", "-1", "digest on", is_group=True, command="settings")
    on = await repo.change("telegram:-1", "digest", True, account="telegram:1", is_group=True)
    assert await digest.settings_changed(on, asker) == SWITCHED_ON
    assert await digest.record(Incoming("telegram", "2", "-1", "今天读诗", user_name="Bo", is_group=True))
    off = await repo.change("telegram:-1", "digest", False, account="telegram:1")
    line = await digest.settings_changed(off, asker)
    assert line is not None and "1 条" in line
    assert await store.since("telegram:-1", datetime(2000, 1, 1, tzinfo=UTC), 10) == []
    skill = await repo.change("telegram:-1", "skill", "poetry", account="telegram:1")
    assert await digest.settings_changed(skill, asker) is None
