"""Two real `fuzi run telegram` processes on one PostgreSQL schema (no Redis), Telegram played by the
fake Bot API: both see the same due minute and each chat's daily passage is posted once; a post due
while both were down is caught up inside the grace window, one due longer ago is skipped; a chat that
answers 403 gets its schedule switched off."""

from __future__ import annotations

import asyncio
import time as clock
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy import text

from core.storage import Storage, open_database
from core.storage.chat_settings import Daily
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.telegram_api import TOKEN, FakeTelegram
from tests.helpers_db import postgres_url  # noqa: F401
from tests.helpers_replicas import FuziProcess, fuzi_env, release_index, stop_all

pytestmark = pytest.mark.processes

CAUGHT_UP, MISSED, GONE, LIVE = -1001, -1002, -1003, -1004


def env_for(home: Path, tg: FakeTelegram, llm_url: str, database_url: str) -> dict:
    """`fuzi run telegram` polling the fake Bot API, without Redis."""
    return fuzi_env(
        home,
        database_url,
        llm_url,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=tg.base_url,
        TELEGRAM_POLL_TIMEOUT_S="1",
    )


def live_minute(now: datetime) -> datetime:
    """The first whole minute at least 40 s away: both processes are up and scanning by then."""
    return (now + timedelta(seconds=100)).replace(second=0, microsecond=0)


async def set_daily(storage: Storage, chat: int, at: datetime) -> None:
    await storage.settings.change(
        f"telegram:{chat}",
        "daily",
        Daily(at.time().replace(second=0, microsecond=0), "UTC"),
        account="telegram:42",
        platform="telegram",
        is_group=True,
    )


@pytest.mark.timeout(420)
async def test_two_processes_post_each_due_chat_once(tmp_path, tg, fake_llm, postgres_url):  # noqa: F811
    home = tmp_path / "home"
    home.mkdir()
    env = env_for(home, tg, fake_llm.base_url, postgres_url)
    fake_llm.set_default(lambda body: "学而时习之，温故而知新，今人读书亦当如此。")
    sql = open_database(postgres_url)
    storage = Storage(sql)
    now = datetime.now(UTC)
    live = live_minute(now)
    await set_daily(storage, CAUGHT_UP, now - timedelta(minutes=30))  # due while every process was down
    await set_daily(storage, MISSED, now - timedelta(hours=3))  # later than the 2 h grace
    await set_daily(storage, GONE, now - timedelta(minutes=30))  # the bot was removed from this group
    await set_daily(storage, LIVE, live)
    with sql.begin() as conn:  # the times were set 4 h ago: today's occurrences count, yesterday's not
        conn.execute(text("UPDATE chat_setting_change SET created_at = :t"), {"t": now - timedelta(hours=4)})
    tg.fail("sendMessage", status=403, times=5, when=lambda c: c.chat_id == GONE)
    await release_index(env)
    procs = [FuziProcess(env, "telegram", tmp_path / f"replica{i}.log") for i in range(2)]
    try:
        deadline = clock.monotonic() + (live - datetime.now(UTC)).total_seconds() + 90
        while clock.monotonic() < deadline and not (tg.messages_in(LIVE) and tg.messages_in(CAUGHT_UP)):
            for p in procs:
                p.assert_alive()
            await asyncio.sleep(0.5)
        await asyncio.sleep(3)  # a second post, if there were one, would arrive now
        output = "\n".join(p.log_path.read_text() for p in procs)
        assert len(tg.messages_in(LIVE)) == 1, output[-4000:]
        assert len(tg.messages_in(CAUGHT_UP)) == 1
        assert tg.messages_in(MISSED) == []
        assert [c.status for c in tg.calls_to("sendMessage", GONE)] == [403]
        text_shown = tg.messages_in(LIVE)[0].text
        assert text_shown.startswith("【每日一章】《") and "温故而知新" in text_shown
        with sql.connect() as conn:
            rows = dict(conn.execute(text("SELECT chat_key, status FROM schedule_claim")).all())
        assert rows == {
            f"telegram:{CAUGHT_UP}": "sent",
            f"telegram:{MISSED}": "skipped",
            f"telegram:{GONE}": "gone",
            f"telegram:{LIVE}": "sent",
        }
        storage.settings.forget_cached()
        assert (await storage.settings.fresh(f"telegram:{GONE}")).daily is None
        missed = [line for line in output.splitlines() if "schedule_missed" in line]
        assert len(missed) == 1 and f"telegram:{MISSED}" in missed[0]  # logged once, by one process
        assert "schedule_chat_gone_switched_off" in output
    finally:
        stop_all(procs)
        sql.dispose()
