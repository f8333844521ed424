"""Settings live in SQL: they survive a restart and every replica on the same database sees them."""

from __future__ import annotations

import asyncio
from datetime import time

from core.storage import Storage, open_database
from core.storage.chat_settings import ChatSettingsRepo, Daily
from tests.helpers_db import database_url, postgres_url  # noqa: F401


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_two_replicas_share_settings_and_a_restart_keeps_them(database_url):  # noqa: F811
    one, two = open_database(database_url), open_database(database_url)  # two processes' engines
    try:
        a, clock = Storage(one), Clock()
        b = ChatSettingsRepo(two, cache_s=5.0, clock=clock)
        assert (await b.get("telegram:-1")).script is None  # read once: now cached in "replica B"
        await a.chats.ensure("telegram:-1", "telegram", True)
        await a.settings.change("telegram:-1", "script", "traditional", account="telegram:7", is_group=True)
        await a.settings.change("telegram:-1", "daily", Daily(time(7, 30), "Asia/Taipei"), account="telegram:7")
        assert (await b.get("telegram:-1")).script is None  # B's cache is still young
        clock.now = 5.1
        seen = await b.get("telegram:-1")
        assert seen.script == "traditional" and seen.daily == Daily(time(7, 30), "Asia/Taipei") and seen.is_group
        assert [s.chat_key for s in await b.with_daily()] == ["telegram:-1"]
        assert await b.with_digest() == []
    finally:
        one.dispose()
        two.dispose()
    restarted = open_database(database_url)
    try:
        again = Storage(restarted).settings
        settings = await again.get("telegram:-1")
        assert settings.script == "traditional" and settings.daily is not None
        assert [c.account for c in await again.history("telegram:-1")] == ["telegram:7", "telegram:7"]
    finally:
        restarted.dispose()


async def test_two_admins_changing_at_once_both_logged_last_one_wins(postgres_url):  # noqa: F811
    one, two = open_database(postgres_url), open_database(postgres_url)
    try:
        a, b = Storage(one).settings, Storage(two).settings
        times = [Daily(time(h, 0)) for h in range(6, 12)]
        await asyncio.gather(
            *[
                (a if i % 2 else b).change("discord:5", "daily", d, account=f"discord:{i}", is_group=True)
                for i, d in enumerate(times)
            ]
        )
        history = await a.history("discord:5")
        assert len(history) == len(times)  # every change logged, none lost
        final = await a.fresh("discord:5")
        assert str(final.daily) == history[0].new_value  # the log's newest entry is what is stored
        chain = [h.old_value for h in reversed(history)]
        assert chain[0] == "off" and all(h.old_value != h.new_value for h in history)
    finally:
        one.dispose()
        two.dispose()
