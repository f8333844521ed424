"""Two real `fuzi run telegram` processes on one PostgreSQL schema and one Redis prefix, Telegram played
by the fake Bot API: each person's recitation reminder is sent once (the live minute and one caught
up after both were down), none for a person with no card due."""

from __future__ import annotations

import asyncio
import time as clock
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from core.recite.store import ReciteStore
from core.storage import Storage, open_database
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.telegram_api import TOKEN
from tests.helpers_db import postgres_url, redis_prefix  # noqa: F401
from tests.helpers_replicas import FuziProcess, fuzi_env, release_index, stop_all

pytestmark = pytest.mark.processes

LIVE, CAUGHT_UP, NOTHING_DUE = 601, 602, 603


@pytest.mark.timeout(420)
async def test_two_processes_send_each_reminder_once(tmp_path, tg, fake_llm, postgres_url, redis_prefix):  # noqa: F811
    redis_url, prefix = redis_prefix
    home = tmp_path / "home"
    home.mkdir()
    env = fuzi_env(
        home,
        postgres_url,
        fake_llm.base_url,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=tg.base_url,
        TELEGRAM_POLL_TIMEOUT_S="1",
        FUZI_REDIS_URL=redis_url,
        FUZI_REDIS_PREFIX=prefix,
    )
    sql = open_database(postgres_url)
    storage, store = Storage(sql), ReciteStore(sql)
    now = datetime.now(UTC)
    live = (now + timedelta(seconds=100)).replace(second=0, microsecond=0)  # both up and looking by then
    set_at = now - timedelta(hours=4)
    for chat, at, due in (
        (LIVE, live, True),
        (CAUGHT_UP, now - timedelta(minutes=30), True),
        (NOTHING_DUE, now - timedelta(minutes=30), False),
    ):
        person = await storage.identities.resolve("telegram", str(chat), f"p{chat}")
        await store.add(person, ["lunyu:1.1", "shijing:1"], now if due else now + timedelta(days=3))
        await store.set_reminder(person, f"telegram:{chat}", f"{at:%H:%M}", "UTC", set_at)
    await release_index(env)
    procs = [FuziProcess(env, "telegram", tmp_path / f"replica{i}.log") for i in range(2)]
    try:
        deadline = clock.monotonic() + (live - datetime.now(UTC)).total_seconds() + 90
        while clock.monotonic() < deadline and not (tg.messages_in(LIVE) and tg.messages_in(CAUGHT_UP)):
            for p in procs:
                p.assert_alive()
            await asyncio.sleep(0.5)
        await asyncio.sleep(3)  # a second DM, if there were one, would arrive now
        output = "\n".join(p.log_path.read_text() for p in procs)
        assert len(tg.messages_in(LIVE)) == 1, output[-4000:]
        assert len(tg.messages_in(CAUGHT_UP)) == 1
        assert tg.messages_in(NOTHING_DUE) == []
        assert "2 张卡到期" in tg.messages_in(LIVE)[0].text
        with sql.connect() as conn:
            rows = conn.execute(text("SELECT chat_key, status, owner FROM schedule_claim WHERE kind = 'recite'")).all()
        assert sorted(r[1] for r in rows) == ["sent", "sent", "skipped"]
        assert sum("recite_reminded" in line for line in output.splitlines()) == 2
    finally:
        stop_all(procs)
        sql.dispose()
