"""Two `fuzi run telegram` webhook processes on one PostgreSQL schema and one Redis prefix, Telegram
played by the fake Bot API with polls: a group's daily quiz is posted once, and each person's poll
answer is scored once when the same answer (and copies of it) reach both processes at once."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import aiohttp
import pytest
import pytest_asyncio
from sqlalchemy import text

from core.storage import Storage, open_database
from core.storage.chat_settings import Daily
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.telegram_polls import FakeTelegramPolls
from tests.helpers_db import postgres_url, redis_prefix  # noqa: F401
from tests.helpers_replicas import Replica, release_index, replica_env, stop_all

pytestmark = pytest.mark.processes

DAILY, LIVE = -1005, -1006


@pytest_asyncio.fixture
async def tgp():
    async with FakeTelegramPolls() as fake:
        yield fake


async def until(predicate, timeout: float, replicas: list[Replica]) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        for r in replicas:
            r.assert_alive()
        assert time.monotonic() < deadline, "\n".join(r.tail() for r in replicas)
        await asyncio.sleep(0.2)


@pytest.mark.timeout(420)
async def test_daily_quiz_once_and_answers_scored_once_across_two_processes(
    tmp_path,
    tgp,
    fake_llm,  # noqa: F811
    postgres_url,  # noqa: F811
    redis_prefix,  # noqa: F811
):
    redis_url, prefix = redis_prefix
    home = tmp_path / "home"
    home.mkdir()
    env = replica_env(home, postgres_url, redis_url, prefix, tgp.base_url, fake_llm.base_url)
    fake_llm.set_default(lambda body: "学而时习之。")
    sql = open_database(postgres_url)
    storage = Storage(sql)
    now = datetime.now(UTC)
    due = (now - timedelta(minutes=10)).time().replace(second=0, microsecond=0)
    await storage.settings.change(
        f"telegram:{DAILY}", "quiz", Daily(due, "UTC"), account="telegram:42", platform="telegram", is_group=True
    )
    with sql.begin() as conn:  # set hours ago: today's occurrence (ten minutes ago) is due, caught up
        conn.execute(text("UPDATE chat_setting_change SET created_at = :t"), {"t": now - timedelta(hours=4)})
    await release_index(env)
    replicas: list[Replica] = []
    try:
        async with aiohttp.ClientSession() as session:
            for i in range(2):
                replicas.append(await Replica.started(env, tmp_path / f"replica{i}.log", session))
            a, b = replicas

            # the daily quiz: both processes see it due, one claims and posts it
            await until(lambda: [p for p in tgp.polls.values() if p.chat_id == DAILY], 60, replicas)
            await asyncio.sleep(3)  # a second poll, if there were one, would be sent now
            assert len(tgp.calls_to("sendPoll", DAILY)) == 1
            with sql.connect() as conn:
                claims = conn.execute(text("SELECT status FROM schedule_claim WHERE kind = 'quiz'")).scalars().all()
            assert claims == ["sent"]

            # /quiz in another group, answered through both processes at once
            assert await a.deliver(session, tgp.group_text(LIVE, "/quiz")) == 200
            await until(lambda: [p for p in tgp.polls.values() if p.chat_id == LIVE], 30, replicas)
            (poll,) = [p for p in tgp.polls.values() if p.chat_id == LIVE]
            right = poll.correct_option_ids[0]
            wrong = (right + 1) % len(poll.options)
            same = tgp.poll_answer(poll.poll_id, user_id=1, name="Zilu", option_ids=[right])
            copy = tgp.poll_answer(poll.poll_id, user_id=1, name="Zilu", option_ids=[right])
            other = tgp.poll_answer(poll.poll_id, user_id=2, name="Zigong", option_ids=[wrong])
            statuses = await asyncio.gather(
                a.deliver(session, same),
                b.deliver(session, same),
                b.deliver(session, copy),
                a.deliver(session, copy),
                a.deliver(session, other),
                b.deliver(session, other),
            )
            assert set(statuses) == {200}

            def answers() -> list[tuple]:
                with sql.connect() as conn:
                    q = "SELECT account, option, correct FROM quiz_answer ORDER BY account"
                    return [tuple(r) for r in conn.execute(text(q)).all()]

            await until(lambda: len(answers()) >= 2, 30, replicas)
            await asyncio.sleep(2)  # a second row, if one could be written, would be there now
            assert answers() == [("telegram:1", right, True), ("telegram:2", wrong, False)]

            assert await b.deliver(session, tgp.group_text(LIVE, "/leaderboard")) == 200
            await until(lambda: any("Zilu" in m.text for m in tgp.messages_in(LIVE)), 30, replicas)
            board = next(m.text for m in tgp.messages_in(LIVE) if "Zilu" in m.text)
            assert "1. Zilu · 答对 1/1 · 连续 1 天" in board
    finally:
        stop_all(replicas)
        sql.dispose()
