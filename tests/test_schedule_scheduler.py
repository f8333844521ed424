"""The scheduler with a fake clock on a real database: once per chat and local date across schedulers,
the grace window after a restart, clock jumps, takeover of a dead claim, 403 switches off, rotation."""

from __future__ import annotations

import asyncio
from datetime import time, timedelta
from zoneinfo import ZoneInfo

import pytest

from core.schedule.passage import NO_EXPLANATION, DailyPassage
from core.schedule.ports import ChatSchedule, Posted, Posters
from core.schedule.scheduler import Scheduler
from core.schedule.store import CLAIM_LEASE, ClaimRepo, RotationRepo
from core.schedule.timing import decide
from core.skills import SkillRegistry
from core.storage import Storage, open_database
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.helpers_schedule import (  # noqa: F401  (log_events is a fixture)
    DictSettings,
    FakeClock,
    RecordingPoster,
    count,
    log_events,
    tiny_passages,
    utc,
)

DUE = utc(2026, 12, 2, 0, 0)  # 08:00 in Asia/Shanghai


@pytest.fixture
def sql(database_url):  # noqa: F811
    engine = open_database(database_url)
    yield engine
    engine.dispose()


def chat(key: str = "telegram:-1001", at: time = time(8, 0), **kw) -> ChatSchedule:
    return ChatSchedule(key, daily_at=at, zone=kw.pop("zone", "Asia/Shanghai"), is_group=True, **kw)


def scheduler(sql, settings, clock, poster=None, *, llm=None, passages=None, **kw):
    posters = Posters()
    posters.register("telegram", poster or RecordingPoster())
    daily = DailyPassage(passages or tiny_passages(), RotationRepo(sql), SkillRegistry(), llm)
    return Scheduler(
        settings,
        ClaimRepo(sql),
        daily,
        posters,
        messages=Storage(sql).messages,
        now=clock.now,
        monotonic=clock.monotonic,
        **kw,
    )


async def run_scan(s: Scheduler) -> int:
    tasks = await s.scan()
    if tasks:
        await asyncio.gather(*tasks)
    return len(tasks)


async def test_two_schedulers_at_the_same_minute_post_once(sql):
    clock = FakeClock(DUE + timedelta(seconds=1))
    later = chat("telegram:7", at=time(9, 0), daily_since=DUE - timedelta(hours=1))  # set last night
    settings = DictSettings(chat("telegram:-1001"), chat("telegram:-1002"), later)
    a_poster, b_poster = RecordingPoster(), RecordingPoster()
    a, b = scheduler(sql, settings, clock, a_poster), scheduler(sql, settings, clock, b_poster)
    started = await asyncio.gather(a.scan(), b.scan())
    await asyncio.gather(*started[0], *started[1])
    sent = a_poster.sent + b_poster.sent
    assert sorted(c for c, _ in sent) == ["-1001", "-1002"]  # 09:00 is not due yet (nor yesterday's: set since)
    # looking again in the same minute (and later that day) changes nothing
    for _ in range(3):
        clock.advance(timedelta(seconds=20))
        assert await run_scan(a) + await run_scan(b) == 0
    rows = await ClaimRepo(sql).all()
    assert sorted((r.chat_key, r.status) for r in rows) == [("telegram:-1001", "sent"), ("telegram:-1002", "sent")]
    text = sent[0][1]
    assert text.startswith("【每日一章】《") and NO_EXPLANATION in text  # no model: the text and the note
    stored = await Storage(sql).messages.recent(f"telegram:{sent[0][0]}", 5)
    assert [m.role for m in stored] == ["assistant"] and stored[0].text == text


async def test_restart_inside_grace_posts_later_is_skipped_once(sql, log_events):
    settings = DictSettings(chat("telegram:-1001"), chat("telegram:-1002", at=time(5, 0)))
    clock = FakeClock(DUE + timedelta(minutes=90))  # every process was down at 08:00; back at 09:30
    poster = RecordingPoster()
    s = scheduler(sql, settings, clock, poster)
    assert await run_scan(s) == 1
    assert [c for c, _ in poster.sent] == ["-1001"]
    rows = {r.chat_key: r for r in await ClaimRepo(sql).all()}
    # 05:00 was 4 h 30 ago: skipped, recorded once, logged once — also by a second scheduler
    assert rows["telegram:-1002"].status == "skipped"
    other = scheduler(sql, settings, clock, RecordingPoster())
    assert await run_scan(other) == 0
    assert count(log_events, "schedule_missed") == 1


async def test_clock_jumps_do_not_repeat_or_lose_a_post(sql):
    settings = DictSettings(chat())
    clock = FakeClock(DUE - timedelta(minutes=1))
    poster = RecordingPoster()
    s = scheduler(sql, settings, clock, poster)
    assert await run_scan(s) == 0
    clock.jump(timedelta(minutes=30))  # forward over 08:00, within grace: posted
    assert await run_scan(s) == 1
    clock.jump(timedelta(minutes=-45))  # back to 07:46: yesterday's occurrence is missed, today's not due
    assert await run_scan(s) == 0
    clock.jump(timedelta(minutes=20))  # 08:06 again: already claimed, not repeated
    assert await run_scan(s) == 0
    fresh = scheduler(sql, settings, clock, poster)  # a restarted process with no memory
    assert await run_scan(fresh) == 0
    assert len(poster.sent) == 1


async def test_forward_jump_past_grace_skips(sql):
    settings = DictSettings(chat())
    clock = FakeClock(DUE - timedelta(minutes=1))
    poster = RecordingPoster()
    s = scheduler(sql, settings, clock, poster)
    clock.jump(timedelta(hours=3))
    assert await run_scan(s) == 0
    assert [r.status for r in await ClaimRepo(sql).all()] == ["skipped"]


async def test_a_claim_left_by_a_dead_process_is_taken_over_after_the_lease(sql):
    settings = DictSettings(chat())
    clock = FakeClock(DUE + timedelta(seconds=5))
    claims = ClaimRepo(sql)
    occ = decide(time(8, 0), ZoneInfo("Asia/Shanghai"), clock.now(), grace=timedelta(hours=2)).occurrence
    assert await claims.claim("telegram:-1001", "daily", occ, now=clock.now())  # its process died here
    poster = RecordingPoster()
    s = scheduler(sql, settings, clock, poster)
    assert await run_scan(s) == 0  # the claim is fresh: its owner may still be working
    clock.advance(CLAIM_LEASE - timedelta(seconds=30))
    assert await run_scan(s) == 0  # looked again only once the lease is over
    clock.advance(timedelta(minutes=1))
    assert await run_scan(s) == 1
    assert len(poster.sent) == 1
    assert [r.status for r in await claims.all()] == ["sent"]


async def test_gone_switches_the_schedule_off_and_is_not_retried(sql, log_events):
    settings = DictSettings(chat("telegram:-1001"), chat("telegram:-1002"))
    clock = FakeClock(DUE)
    poster = RecordingPoster(answers={"-1001": Posted("gone", "403 Forbidden: bot was kicked from the group chat")})
    s = scheduler(sql, settings, clock, poster)
    assert await run_scan(s) == 2
    assert settings.switched_off == [("telegram:-1001", "403 Forbidden: bot was kicked from the group chat")]
    rows = {r.chat_key: r.status for r in await ClaimRepo(sql).all()}
    assert rows == {"telegram:-1001": "gone", "telegram:-1002": "sent"}
    assert count(log_events, "schedule_chat_gone_switched_off") == 1
    clock.advance(timedelta(days=1))
    assert await run_scan(s) == 1  # only the chat still scheduled
    assert [c for c, _ in poster.sent] == ["-1002", "-1002"]


async def test_only_platforms_this_process_runs_are_claimed(sql):
    settings = DictSettings(chat("discord:555"), chat("telegram:-1001"))
    clock = FakeClock(DUE)
    s = scheduler(sql, settings, clock)
    assert await run_scan(s) == 1
    assert [r.chat_key for r in await ClaimRepo(sql).all()] == ["telegram:-1001"]


async def test_rotation_shows_every_passage_before_repeating(sql):
    settings = DictSettings(chat())
    clock = FakeClock(DUE)
    poster = RecordingPoster()
    s = scheduler(sql, settings, clock, poster)
    for _ in range(6):
        assert await run_scan(s) == 1
        clock.advance(timedelta(days=1))
    refs = [text.split("\n")[0] for _, text in poster.sent]
    assert len(set(refs[:3])) == 3 and len(set(refs[3:])) == 3  # two full rounds
    assert refs[2] != refs[3]  # a new round does not start with the passage just shown
    assert {r.passage_id for r in await ClaimRepo(sql).all()} == {"lunyu:1.1", "lunyu:2.1", "shijing:1"}


async def test_an_unknown_zone_is_logged_and_skipped(sql, log_events):
    settings = DictSettings(chat("telegram:-1001", zone="Mars/Olympus"), chat("telegram:-1002"))
    s = scheduler(sql, settings, FakeClock(DUE))
    assert await run_scan(s) == 1
    assert await run_scan(s) == 0
    assert count(log_events, "schedule_unknown_zone") == 1


async def test_the_loop_looks_posts_and_stops(sql):
    settings = DictSettings(chat())
    clock = FakeClock(DUE - timedelta(seconds=1))
    poster = RecordingPoster()
    s = scheduler(sql, settings, clock, poster, tick_s=0.05)
    stop = asyncio.Event()
    task = asyncio.create_task(s.run(stop))
    await asyncio.sleep(0.2)
    assert poster.sent == []  # 07:59:59: not yet
    clock.advance(timedelta(seconds=2))
    for _ in range(40):
        if poster.sent:
            break
        await asyncio.sleep(0.1)
    stop.set()
    await asyncio.wait_for(task, 5)
    assert len(poster.sent) == 1


async def test_one_failing_chat_does_not_hold_up_the_others(sql, log_events):
    class LosesConnection(ClaimRepo):
        async def claim(self, chat_key, *args, **kwargs):
            if chat_key == "telegram:-1001":
                raise ConnectionError("server closed the connection")
            return await super().claim(chat_key, *args, **kwargs)

    settings = DictSettings(chat("telegram:-1001"), chat("telegram:-1002"))
    clock = FakeClock(DUE)
    poster = RecordingPoster()
    s = scheduler(sql, settings, clock, poster)
    s._claims = LosesConnection(sql)
    assert await run_scan(s) == 1
    assert [c for c, _ in poster.sent] == ["-1002"]
    assert count(log_events, "schedule_chat_failed") == 1
