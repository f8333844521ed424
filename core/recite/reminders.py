"""`/recite remind HH:MM [Area/City]`: one DM a day when the person has cards due, exactly once.

The same claim as the daily passage (core/schedule/store.py, docs/schedule.md): for each reminder
whose local time has come (core/schedule/timing.py `decide`: zones, DST, the grace window, not
before it was set) a process inserts the row (`recite:<person>`, "recite", local date); only the
process whose insert made it sends, so any number of replicas send once. A day without cards due
is recorded `skipped` (nothing is sent); a reminder found later than the grace is `skipped` and
logged once. A reminder is claimed only by a process that runs the platform of its DM.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import structlog

from core.recite.models import ReciteReminder
from core.recite.store import ReciteStore
from core.schedule.ports import Posters
from core.schedule.scheduler import DEFAULT_GRACE, TICK_S
from core.schedule.store import ClaimRepo
from core.schedule.timing import decide
from core.storage.chatlog import aware
from core.texts import say

log = structlog.get_logger(__name__)

KIND = "recite"
OPEN_KEPT = timedelta(days=1)
"""An open card expired this long ago is deleted by the loop (an answer that late is only told it expired)."""


def claim_key(person_id: int) -> str:
    return f"recite:{person_id}"


class ReciteReminders:
    """Looks for due reminders and sends each once (see the module docstring).

    Args:
        store: the recitation tables (reminders, due cards).
        claims: the schedule's claim rows.
        posters: the platforms this process can post to.
        now: the wall clock (aware); tests pass a fake one.
        grace: how late a reminder may still be sent.
    """

    def __init__(
        self,
        store: ReciteStore,
        claims: ClaimRepo,
        posters: Posters,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        grace: timedelta = DEFAULT_GRACE,
        tick_s: float = TICK_S,
    ) -> None:
        self._store, self._claims, self._posters = store, claims, posters
        self._now, self.grace, self.tick_s = now, grace, tick_s
        self._settled: set[tuple[int, str]] = set()  # (person, local date) this process is done with

    async def run(self, stop: asyncio.Event) -> None:
        """Look every `tick_s` until `stop` is set; a failing look is logged and the loop goes on."""
        while not stop.is_set():
            try:
                await self.scan()
            except Exception:
                log.exception("recite_remind_scan_failed")
            try:
                await asyncio.wait_for(stop.wait(), self.tick_s)
            except TimeoutError:
                pass

    async def scan(self) -> int:
        """Send every reminder due now that this process wins; returns how many it sent."""
        now, sent = self._now(), 0
        await self._store.purge_open(now - OPEN_KEPT)
        platforms = self._posters.platforms()
        for reminder in await self._store.reminders():
            if reminder.chat_key.split(":", 1)[0] not in platforms:
                continue
            try:
                sent += await self._consider(reminder, now)
            except Exception:  # one person's failure does not hold up the others
                log.exception("recite_remind_failed", person=reminder.person_id)
        return sent

    async def _consider(self, reminder: ReciteReminder, now: datetime) -> int:
        try:
            zone = ZoneInfo(reminder.zone)
        except (ZoneInfoNotFoundError, ValueError):
            return 0
        at = time.fromisoformat(reminder.at)
        verdict = decide(at, zone, now, grace=self.grace, since=aware(reminder.since))
        occ = verdict.occurrence
        if verdict.action == "wait" or occ is None:
            return 0
        key = (reminder.person_id, occ.local_date.isoformat())
        if key in self._settled:
            return 0
        self._settled.add(key)
        person, chat = claim_key(reminder.person_id), reminder.chat_key
        if verdict.action == "missed":
            if await self._claims.claim(person, KIND, occ, status="skipped", now=now):
                log.info("recite_remind_missed", person=reminder.person_id, late_s=occ.late_by(now).total_seconds())
            return 0
        due = await self._store.due_count(reminder.person_id, now)
        if due == 0:
            await self._claims.claim(person, KIND, occ, status="skipped", now=now)
            return 0
        if not await self._claims.claim(person, KIND, occ, now=now):
            return 0
        poster = self._posters.get(chat.split(":", 1)[0])
        if poster is None:  # the platform stopped between the look and the claim
            await self._claims.finish(person, KIND, occ.local_date, "failed", detail="no poster")
            return 0
        posted = await poster.post(chat.split(":", 1)[1], say("RECITE_REMIND_TEXT", None, n=due))
        await self._claims.finish(person, KIND, occ.local_date, posted.status, detail=posted.detail)
        if posted.status == "gone":  # blocked by the person: no more reminders
            await self._store.clear_reminder(reminder.person_id)
        log.info("recite_reminded", person=reminder.person_id, due=due, status=posted.status)
        return 1 if posted.status == "sent" else 0
