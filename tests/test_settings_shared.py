"""Settings live in SQL: they survive a restart and every replica on the same database sees them."""

from __future__ import annotations

import asyncio
from datetime import time

import pytest

from core.storage import Storage, open_database
from core.storage.chat_settings import ChatSettingsRepo, Daily
from tests.fakes.clock import FakeClock
from tests.helpers_db import database_url, postgres_url  # noqa: F401


async def test_two_replicas_share_settings_and_a_restart_keeps_them(database_url):  # noqa: F811
    one, two = open_database(database_url), open_database(database_url)  # two processes' engines
    try:
        a, clock = Storage(one), FakeClock(0.0)
        b = ChatSettingsRepo(two, cache_s=5.0, clock=clock)
        assert (await b.get("telegram:-1")).script is None  # read once: now cached in "replica B"
        await a.settings.ensure("telegram:-1", "telegram", True)
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


@pytest.mark.processes
async def test_a_change_made_by_another_process_is_seen_here(postgres_url):  # noqa: F811
    import subprocess
    import sys
    from pathlib import Path

    engine = open_database(postgres_url)
    try:
        here = Storage(engine).settings
        assert (await here.get("telegram:-9")).script is None  # cached now
        script = (
            "import asyncio, sys\n"
            "from core.storage import Storage, open_database\n"
            "async def main():\n"
            "    e = open_database(sys.argv[1])\n"
            "    await Storage(e).settings.change('telegram:-9', 'script', 'traditional', account='telegram:3', is_group=True)\n"
            "    e.dispose()\n"
            "asyncio.run(main())\n"
        )
        root = Path(__file__).resolve().parents[1]
        done = subprocess.run([sys.executable, "-c", script, postgres_url], cwd=root, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()[-800:]
        assert (await here.fresh("telegram:-9")).script == "traditional"
        here.forget_cached()
        assert (await here.get("telegram:-9")).script == "traditional"
        [change] = await here.history("telegram:-9")
        assert change.account == "telegram:3"
    finally:
        engine.dispose()
