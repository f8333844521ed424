"""The scheduler: one asyncio loop per process that decides when to look; the database decides who posts.

Every `tick_s` (and just after each minute boundary) the loop reads the chats with a daily passage or
a digest, and for each occurrence that is due (core/schedule/timing.py) tries to claim it
(core/schedule/store.py: one row per chat, kind and local date, `INSERT … ON CONFLICT DO NOTHING`).
Only the process that inserted the row posts, so any number of replicas post once. A process only
claims posts for platforms it runs (`Posters`): a Discord-only process leaves Telegram chats alone.

- Grace: an occurrence found more than `grace` late (every process was down, or the clock jumped
  forward) is not sent; one process records it as "skipped" and logs `schedule_missed` once.
- Clock jumps backward: the occurrence of that local date is claimed already; nothing is repeated.
- A crash between claiming and finishing leaves the claim "claimed"; after `CLAIM_LEASE` another
  process takes it over (inside the grace window). A crash after sending but before recording can
  therefore post twice — the one window where exactly-once is not kept (docs/schedule.md).
- A sent post is stored as the assistant's message of the chat, with the platform messages it went
  out as (`Posted.shown`, noted like a reply's): a reaction on a daily passage or a digest is
  feedback on that post (core/storage/feedback.py).
- A chat where the bot was removed or blocked ("gone", a 403) gets its schedule switched off, logged,
  not retried; other failures are recorded "failed" and not retried either (one post a day; the
  adapters already retried).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from datetime import time as dtime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import structlog

from core.schedule.passage import DailyPassage
from core.schedule.ports import ChatSchedule, DailyQuiz, Posted, Posters, ScheduleSettings
from core.schedule.store import CLAIM_LEASE, ClaimRepo
from core.schedule.timing import Occurrence, decide
from core.storage.chatlog import aware
from core.storage.replies import ReplyRepo
from core.storage.repos import MessageRepo
from core.types import new_trace_id

log = structlog.get_logger(__name__)

DEFAULT_GRACE = timedelta(hours=2)
TICK_S = 20.0
CONCURRENCY = 64
"""Posts composed and handed to the adapters at once; the adapters' pacing decides the send rate."""

Key = tuple[str, str, str]  # chat_key, kind, local date (ISO)


class Scheduler:
    """See the module docstring.

    Args:
        settings: the chats' schedules.
        claims: the claim rows.
        daily: composes daily passages.
        posters: the platforms this process can post to.
        digest: composes digests and purges their store (None: no digests).
        quiz: posts a group's daily quiz (core/quiz; None: no daily quizzes).
        messages: where a sent post is stored as the assistant's message of the chat (its window).
        replies: where the platform messages of a sent post are noted (reactions on them are feedback).
        grace: how late an occurrence may still be sent.
        digest_at: local time of the digest (in the chat's zone).
        now: wall clock (aware datetimes); tests pass a fake one.
        monotonic / sleep: the loop's own timing.
    """

    def __init__(
        self,
        settings: ScheduleSettings,
        claims: ClaimRepo,
        daily: DailyPassage,
        posters: Posters,
        *,
        digest=None,
        quiz: DailyQuiz | None = None,
        messages: MessageRepo | None = None,
        replies: ReplyRepo | None = None,
        grace: timedelta = DEFAULT_GRACE,
        digest_at: dtime = dtime(21, 0),
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        tick_s: float = TICK_S,
        concurrency: int = CONCURRENCY,
    ) -> None:
        self._settings, self._claims, self._daily, self._posters = settings, claims, daily, posters
        self._digest, self._messages, self._replies = digest, messages, replies
        self._quiz = quiz
        self.grace, self.digest_at = grace, digest_at
        self._now, self._monotonic, self._sleep, self.tick_s = now, monotonic, sleep, tick_s
        self._slots = asyncio.Semaphore(concurrency)
        self._looked: dict[Key, float | None] = {}  # None: settled; a time: look again then (monotonic)
        self._tasks: set[asyncio.Task] = set()
        self._bad_zones: set[str] = set()

    # ------------------------------------------------------------------ the loop
    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Scan until `stop` is set (or forever); a failing scan is logged and the loop goes on."""
        stop = stop or asyncio.Event()
        log.info("schedule_started", grace_s=self.grace.total_seconds(), tick_s=self.tick_s)
        while not stop.is_set():
            try:
                await self.scan()
            except Exception:
                log.exception("schedule_scan_failed")
            try:
                await asyncio.wait_for(stop.wait(), self._until_next_look())
            except TimeoutError:
                pass
        await self.drain()

    def _until_next_look(self) -> float:
        """Sleep to one second past the next minute boundary, at most `tick_s`."""
        now = self._now()
        to_minute = 61 - now.second - now.microsecond / 1e6
        return max(0.5, min(self.tick_s, to_minute))

    async def drain(self, timeout_s: float = 30.0) -> None:
        """Wait (bounded) for posts under way; on shutdown."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout_s)

    # ------------------------------------------------------------------ one look
    async def scan(self) -> list[asyncio.Task]:
        """Claim and start every post due now; returns the started tasks (tests await them)."""
        now = self._now()
        platforms = self._posters.platforms()
        started: list[asyncio.Task] = []
        chats = await self._settings.scheduled()
        for chat in chats:
            if chat.platform not in platforms:
                continue
            zone = self._zone(chat)
            if zone is None:
                continue
            try:  # one chat's failure (a lost connection, a bad row) does not hold up the others
                if chat.daily_at is not None:
                    started += await self._consider(chat, "daily", chat.daily_at, zone, now, chat.daily_since)
                if chat.digest and chat.is_group and self._digest is not None:
                    started += await self._consider(chat, "digest", self.digest_at, zone, now, None)
                if chat.quiz_at is not None and chat.is_group and self._quiz is not None:
                    quiz_zone = self._zone(replace(chat, zone=chat.quiz_zone))
                    if quiz_zone is not None:
                        started += await self._consider(chat, "quiz", chat.quiz_at, quiz_zone, now, chat.quiz_since)
            except Exception:
                log.exception("schedule_chat_failed", chat=chat.chat_key)
        if self._digest is not None:
            await self._digest.purge(now, {c.chat_key for c in chats if c.digest})
        self._prune(now)
        return started

    async def _consider(
        self, chat: ChatSchedule, kind: str, at: dtime, zone: ZoneInfo, now: datetime, since: datetime | None
    ) -> list[asyncio.Task]:
        verdict = decide(at, zone, now, grace=self.grace, since=since)
        occ = verdict.occurrence
        if occ is None:
            return []
        key: Key = (chat.chat_key, kind, occ.local_date.isoformat())
        if key in self._looked:
            again = self._looked[key]
            if again is None or self._monotonic() < again:
                return []
        if verdict.action == "missed":
            if await self._claims.claim(chat.chat_key, kind, occ, status="skipped", now=now):
                log.warning(
                    "schedule_missed",
                    chat=chat.chat_key,
                    kind=kind,
                    local_date=key[2],
                    late_s=round(occ.late_by(now).total_seconds()),
                    grace_s=self.grace.total_seconds(),
                )
            await self._settle(key, occ)
            return []
        won = await self._claims.claim(chat.chat_key, kind, occ, now=now)
        if not won:
            won = await self._claims.take_over(chat.chat_key, kind, occ.local_date, now=now)
            if won:
                log.warning("schedule_claim_taken_over", chat=chat.chat_key, kind=kind, local_date=key[2])
        if not won:
            await self._settle(key, occ)
            return []
        self._looked[key] = None
        task = asyncio.create_task(self._post(chat, kind, occ))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return [task]

    async def _settle(self, key: Key, occ: Occurrence) -> None:
        """Another process has this post: never look again, unless its claim is still open (it may die:
        look again when its lease runs out)."""
        row = await self._claims.get(key[0], key[1], occ.local_date)
        if row is None or row.status != "claimed":
            self._looked[key] = None
            return
        claimed_at = aware(row.claimed_at)
        left = (claimed_at + CLAIM_LEASE - self._now()).total_seconds()
        self._looked[key] = self._monotonic() + max(self.tick_s, left)

    def _zone(self, chat: ChatSchedule) -> ZoneInfo | None:
        try:
            return ZoneInfo(chat.zone)
        except (ZoneInfoNotFoundError, ValueError):
            if chat.chat_key not in self._bad_zones:
                self._bad_zones.add(chat.chat_key)
                log.error("schedule_unknown_zone", chat=chat.chat_key, zone=chat.zone)
            return None

    def _prune(self, now: datetime) -> None:
        oldest = (now - timedelta(days=3)).date().isoformat()
        for key in [k for k in self._looked if k[2] < oldest]:
            del self._looked[key]

    # ------------------------------------------------------------------ one post
    async def _post(self, chat: ChatSchedule, kind: str, occ: Occurrence) -> None:
        trace = new_trace_id()
        local_date = occ.local_date
        async with self._slots:
            try:
                if kind == "quiz":
                    await self._post_quiz(chat, occ, trace)
                    return
                text, passage_id = await self._compose(chat, kind, occ)
                if text is None:
                    await self._claims.finish(chat.chat_key, kind, local_date, "skipped", detail=passage_id or "")
                    return
                poster = self._posters.get(chat.platform)
                posted = await poster.post(chat.chat_id, text) if poster else Posted("failed", "platform stopped")
                await self._record(chat, kind, occ, posted, text, passage_id, trace)
            except Exception as exc:
                log.exception("schedule_post_failed", chat=chat.chat_key, kind=kind, trace_id=trace)
                await self._claims.finish(chat.chat_key, kind, local_date, "failed", detail=type(exc).__name__)

    async def _post_quiz(self, chat: ChatSchedule, occ: Occurrence, trace: str) -> None:
        """The daily quiz: posted like /quiz (one open quiz per chat: when one is open, skipped)."""
        status, detail = await self._quiz.post_daily(chat.chat_key) if self._quiz else ("failed", "no quiz")
        if status == "gone":
            await self._settings.daily_off(chat.chat_key, detail)
        await self._claims.finish(chat.chat_key, "quiz", occ.local_date, status, detail=detail)
        log.info("schedule_quiz", chat=chat.chat_key, status=status, detail=detail, trace_id=trace)

    async def _note(self, posted: Posted, trace: str) -> None:
        """Note the messages a sent post went out as; a failure is logged (the post is sent and stored)."""
        if self._replies is None:
            return
        try:
            for part, where in enumerate(posted.shown):  # the first is the post's own message
                await self._replies.shown_in(trace, where, part or None)
        except Exception as exc:
            log.warning("schedule_post_not_noted", trace_id=trace, error=type(exc).__name__)

    async def _compose(self, chat: ChatSchedule, kind: str, occ: Occurrence) -> tuple[str | None, str | None]:
        """(text, passage id) of a daily post; (text or None, why) of a digest (None: nothing to post)."""
        if kind == "daily":
            composed = await self._daily.compose(chat, occ.local_date)
            return composed.text, composed.passage_id
        return await self._digest.compose(chat, occ)

    async def _record(
        self, chat: ChatSchedule, kind: str, occ: Occurrence, posted: Posted, text: str, passage_id, trace: str
    ) -> None:
        fields = dict(chat=chat.chat_key, kind=kind, local_date=occ.local_date.isoformat(), trace_id=trace)
        daily_passage = passage_id if kind == "daily" else None
        if posted.status == "sent":
            if daily_passage:
                await self._daily.mark_shown(chat, daily_passage)
            await self._claims.finish(chat.chat_key, kind, occ.local_date, "sent", passage_id=daily_passage)
            if self._messages is not None:
                await self._messages.add(chat.chat_key, "assistant", text, status="ok", trace_id=trace)
                await self._note(posted, trace)
            late = round((self._now() - occ.due_at).total_seconds(), 1)
            log.info("schedule_posted", passage=daily_passage, late_s=late, **fields)
        elif posted.status == "gone":
            await self._settings.daily_off(chat.chat_key, posted.detail)
            await self._claims.finish(chat.chat_key, kind, occ.local_date, "gone", detail=posted.detail)
            log.warning("schedule_chat_gone_switched_off", detail=posted.detail, **fields)
        else:
            await self._claims.finish(chat.chat_key, kind, occ.local_date, "failed", detail=posted.detail)
            log.error("schedule_post_undelivered", detail=posted.detail, **fields)
