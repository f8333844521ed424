"""When a daily post is due: DST gaps and folds, the 23:59 → 00:00 edge, grace, `since` (fake clock)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from core.schedule.timing import decide, latest_due, next_due, occurrence

SH = ZoneInfo("Asia/Shanghai")
NY = ZoneInfo("America/New_York")
GRACE = timedelta(hours=2)


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_due_at_the_local_minute_and_not_before():
    at = time(8, 0)
    assert decide(at, SH, utc(2026, 12, 1, 23, 59, 59), grace=GRACE).occurrence.local_date == date(2026, 12, 1)
    # 08:00 Shanghai is 00:00 UTC: one second before, the newest occurrence is yesterday's, long missed
    v = decide(at, SH, utc(2026, 12, 1, 23, 59, 59), grace=GRACE)
    assert v.action == "missed"
    v = decide(at, SH, utc(2026, 12, 2, 0, 0, 0), grace=GRACE)
    assert (v.action, v.occurrence.local_date) == ("post", date(2026, 12, 2))
    assert v.occurrence.due_at == utc(2026, 12, 2, 0, 0)


def test_grace_window_edges():
    at = time(8, 0)
    assert decide(at, SH, utc(2026, 12, 2, 2, 0, 0), grace=GRACE).action == "post"  # exactly 2 h late
    v = decide(at, SH, utc(2026, 12, 2, 2, 0, 1), grace=GRACE)
    assert (v.action, v.occurrence.local_date) == ("missed", date(2026, 12, 2))


def test_2359_is_still_due_after_local_midnight_under_yesterdays_date():
    at = time(23, 59)
    # 23:59 Shanghai on Dec 1 is 15:59 UTC; a process looking at 00:00:30 local (16:00:30 UTC)
    v = decide(at, SH, utc(2026, 12, 1, 16, 0, 30), grace=GRACE)
    assert (v.action, v.occurrence.local_date) == ("post", date(2026, 12, 1))
    # and a 00:00 schedule on the next local date gets its own key
    v0 = decide(time(0, 0), SH, utc(2026, 12, 1, 16, 0, 30), grace=GRACE)
    assert (v0.action, v0.occurrence.local_date) == ("post", date(2026, 12, 2))


def test_spring_forward_gap_posts_one_hour_later_on_the_wall_clock():
    # 2026-03-08 02:30 does not exist in New York (02:00 EST → 03:00 EDT)
    occ = occurrence(date(2026, 3, 8), time(2, 30), NY)
    assert occ.due_at == utc(2026, 3, 8, 7, 30)  # 02:30 EST == 03:30 EDT
    assert occ.due_at.astimezone(NY).strftime("%H:%M %Z") == "03:30 EDT"
    assert decide(time(2, 30), NY, utc(2026, 3, 8, 7, 29), grace=GRACE).occurrence.local_date == date(2026, 3, 7)
    v = decide(time(2, 30), NY, utc(2026, 3, 8, 7, 30), grace=GRACE)
    assert (v.action, v.occurrence.local_date) == ("post", date(2026, 3, 8))
    # the days around keep their wall-clock time
    assert occurrence(date(2026, 3, 7), time(2, 30), NY).due_at == utc(2026, 3, 7, 7, 30)  # EST
    assert occurrence(date(2026, 3, 9), time(2, 30), NY).due_at == utc(2026, 3, 9, 6, 30)  # EDT


def test_fall_back_fold_posts_once_at_the_first_0130():
    # 2026-11-01 01:30 happens twice in New York (EDT, then EST): the first one counts
    occ = occurrence(date(2026, 11, 1), time(1, 30), NY)
    assert occ.due_at == utc(2026, 11, 1, 5, 30)
    # at the second 01:30 (06:30 UTC) the newest occurrence is still that same local date: one key
    v = decide(time(1, 30), NY, utc(2026, 11, 1, 6, 30), grace=GRACE)
    assert (v.action, v.occurrence.local_date) == ("post", date(2026, 11, 1))
    assert v.occurrence.due_at == occ.due_at


def test_set_after_todays_time_waits_for_tomorrow():
    at = time(8, 0)
    now = utc(2026, 12, 2, 1, 30)  # 09:30 Shanghai
    assert decide(at, SH, now, grace=GRACE, since=utc(2026, 12, 2, 1, 29)).action == "wait"
    assert decide(at, SH, now, grace=GRACE, since=utc(2026, 12, 1, 12, 0)).action == "post"
    assert next_due(at, SH, now) == utc(2026, 12, 3, 0, 0)


def test_clock_jump_forward_past_grace_is_missed_backward_finds_yesterday():
    at = time(8, 0)
    # a jump of +5 h over the 08:00 post: too late to send
    assert decide(at, SH, utc(2026, 12, 2, 5, 0), grace=GRACE).action == "missed"
    # a jump back to 07:00 local: the newest occurrence is yesterday's (long missed, already claimed)
    v = decide(at, SH, utc(2026, 12, 1, 23, 0), grace=GRACE)
    assert v.occurrence.local_date == date(2026, 12, 1)


def test_utc_zone_and_far_zones():
    assert latest_due(time(0, 0), ZoneInfo("UTC"), utc(2026, 12, 2, 0, 0)).local_date == date(2026, 12, 2)
    kiritimati = ZoneInfo("Pacific/Kiritimati")  # UTC+14
    occ = latest_due(time(8, 0), kiritimati, utc(2026, 12, 1, 18, 0))
    assert occ.local_date == date(2026, 12, 2) and occ.due_at == utc(2026, 12, 1, 18, 0)
