"""When a chat's daily post is due: local wall-clock times in IANA zones, DST, the grace window.

Pure functions over an explicit `now` (an aware datetime), so every edge is tested with a fake clock.

Rules (docs/schedule.md):
- An occurrence is the chat's local time on one local date. Its key is that local date: at most one
  post per chat, kind and local date, whatever the clocks do.
- A local time that does not exist on a date (spring forward, e.g. 02:30 in New York on the second
  Sunday of March) is posted at the same offset as before the gap, i.e. one hour later on the wall
  clock (03:30 EDT): Python's `fold=0` reading, which PEP 495 defines for times in a gap.
- A local time that happens twice (fall back, 01:30) is posted at its first occurrence (`fold=0`).
- An occurrence is due from its instant until `grace` after it; later it is missed (skipped and
  logged once, see core/schedule/scheduler.py). Yesterday's occurrence is looked at too, so a 23:59
  post that a process reaches at 00:00:30 is still sent (its key stays yesterday's date).
- An occurrence before the time the schedule was set (`since`) is never due: setting "daily 08:00" at
  09:30 posts tomorrow, not at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class Occurrence:
    """One local date's post: its key (`local_date`) and the instant it is due (UTC)."""

    local_date: date
    due_at: datetime

    def late_by(self, now: datetime) -> timedelta:
        return now - self.due_at


def occurrence(day: date, at: time, zone: ZoneInfo) -> Occurrence:
    """The instant `at` happens on local date `day` in `zone` (gap: shifted forward; fold: first)."""
    local = datetime.combine(day, at.replace(tzinfo=None, fold=0), tzinfo=zone)
    return Occurrence(day, local.astimezone(UTC))


def latest_due(at: time, zone: ZoneInfo, now: datetime) -> Occurrence | None:
    """The newest occurrence whose instant is not after `now` (today's or yesterday's, local)."""
    today = now.astimezone(zone).date()
    for day in (today, today - timedelta(days=1), today - timedelta(days=2)):
        occ = occurrence(day, at, zone)
        if occ.due_at <= now:
            return occ
    return None  # unreachable for real zones (offsets are under 24 h); kept total


@dataclass(frozen=True)
class Verdict:
    """What to do about a chat's newest occurrence now: "post", "missed" (too late) or "wait"."""

    action: str
    occurrence: Occurrence | None = None


def decide(at: time, zone: ZoneInfo, now: datetime, *, grace: timedelta, since: datetime | None = None) -> Verdict:
    """Post, skip as missed, or wait — for the occurrence of `at` in `zone` most recently due at `now`.

    `since`: when the schedule was set; occurrences before it are not due (nothing to catch up).
    """
    occ = latest_due(at, zone, now)
    if occ is None or (since is not None and occ.due_at < since):
        return Verdict("wait")
    if occ.late_by(now) > grace:
        return Verdict("missed", occ)
    return Verdict("post", occ)


def next_due(at: time, zone: ZoneInfo, now: datetime) -> datetime:
    """The first occurrence instant strictly after `now` (for logs and `/settings` answers)."""
    today = now.astimezone(zone).date()
    for offset in range(0, 3):
        occ = occurrence(today + timedelta(days=offset), at, zone)
        if occ.due_at > now:
            return occ.due_at
    raise AssertionError("unreachable")
