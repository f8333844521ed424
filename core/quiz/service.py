"""The group quiz: open one (by /quiz or the schedule), score answers once, close it, rank people.

- `start`: one open quiz per chat (core/quiz/store.py). The quiz is made from the passages
  (core/quiz/generate.py), stored, then posted through the platform's `QuizPoster`; a post that
  fails releases the chat at once. Every replica shares the tables, so a poll sent by one process
  is scored by whichever process receives its answers — after a restart too.
- `answer_poll` (Telegram `poll_answer`, which names no chat: the poll id leads to the quiz) and
  `answer_button` (Discord): the first answer of a person counts, once. Ignored by rule, each with a
  log line: an unknown poll, a retracted vote (empty `option_ids`: the first answer stays scored),
  an option out of range, an anonymous admin voting as the chat (no person), an answer later than
  `LATE_S` after the quiz closed (Telegram closes its polls itself; the grace covers updates a
  restarted process replays). A member who left keeps the answers given while a member.
- `close_due`: quizzes whose time is up are closed (one process wins each) and, where the platform
  needs it (Discord), the message shows the right option and the score.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import structlog

from core.quiz.generate import NoQuiz, QuizMaker
from core.quiz.models import QuizRow
from core.quiz.ports import PostedQuiz, QuizPost, QuizPoster
from core.quiz.store import QuizRepo
from core.schedule.passage import Convert, keep_script
from core.schedule.ports import Posters
from core.storage.chat_settings import DEFAULT_ZONE, ChatSettingsRepo
from core.texts import say

log = structlog.get_logger(__name__)

OPEN_S = 600
"""How long a quiz stays open (Telegram's `open_period` allows 5–600 s)."""
LATE_S = 600
"""Answers delivered this long after the close still count (replayed after a restart); later: ignored."""


@dataclass(frozen=True)
class Started:
    """What `start` did: "posted", "open" (another quiz is open: `left_s` to go), "no_platform",
    "no_quiz", "gone" or "failed"; the quiz's row when one was made."""

    status: str
    row: QuizRow | None = None
    left_s: float = 0.0
    detail: str = ""


class QuizService:
    """See the module docstring.

    Args:
        repo: the quiz tables.
        maker: makes questions from the passages.
        posters: the platforms this process can post to (their posters implement `QuizPoster`).
        settings: the chats' settings (zone of the daily quiz for days and weeks, script).
        convert: the chat's script (Traditional) applied to what is posted.
        open_s / late_s: see OPEN_S, LATE_S.
        now: wall clock (aware); rng: the questions' randomness (tests seed it).
    """

    def __init__(
        self,
        repo: QuizRepo,
        maker: QuizMaker,
        posters: Posters,
        settings: ChatSettingsRepo,
        *,
        convert: Convert = keep_script,
        open_s: int = OPEN_S,
        late_s: int = LATE_S,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        rng: random.Random | None = None,
    ) -> None:
        self.repo, self._maker, self._posters, self._settings = repo, maker, posters, settings
        self._convert, self.open_s, self.late_s, self._now = convert, open_s, late_s, now
        self._rng = rng or random.Random()

    # ------------------------------------------------------------------ opening
    async def start(self, chat_key: str, *, origin: str = "command") -> Started:
        platform, chat_id = chat_key.split(":", 1)
        poster = self._posters.get(platform)
        if not isinstance(poster, QuizPoster):
            return Started("no_platform")
        try:
            quiz = self._maker.make(self._rng)
        except NoQuiz:
            log.error("quiz_not_made", chat=chat_key)
            return Started("no_quiz")
        now = self._now()
        for _ in range(3):
            try:
                opened = await self.repo.open(
                    chat_key, quiz, origin=origin, now=now, closes_at=now + timedelta(seconds=self.open_s)
                )
                break
            except LookupError:  # the open quiz closed between our two statements: try again
                continue
        else:
            return Started("failed", detail="busy")
        if not opened.new:
            left = (_aware(opened.row.closes_at) - now).total_seconds()
            log.info("quiz_already_open", chat=chat_key, quiz=opened.row.id)
            return Started("open", opened.row, max(0.0, left))
        row = opened.row
        post = await self._post(poster, chat_id, chat_key, row)
        if post.status != "sent":
            await self.repo.failed(row.id or 0, post.detail)
            log.warning("quiz_not_posted", chat=chat_key, quiz=row.id, status=post.status, detail=post.detail)
            return Started(post.status, row, detail=post.detail)
        await self.repo.posted(row.id or 0, poll_id=post.poll_id, message_id=post.message_id)
        log.info("quiz_posted", chat=chat_key, quiz=row.id, kind=row.kind, passage=row.passage_id, origin=origin)
        return Started("posted", row)

    async def post_daily(self, chat_key: str) -> tuple[str, str]:
        """The scheduled quiz (`core.schedule.ports.DailyQuiz`): one already open means none today."""
        started = await self.start(chat_key, origin="daily")
        if started.status == "posted":
            return "sent", f"quiz {started.row.id if started.row else ''}"
        if started.status in ("open", "no_quiz"):
            return "skipped", started.status
        return ("gone" if started.status == "gone" else "failed"), (started.detail or started.status)[:200]

    def now(self) -> datetime:
        return self._now()

    async def _post(self, poster: QuizPoster, chat_id: str, chat_key: str, row: QuizRow) -> PostedQuiz:
        try:
            return await poster.post_quiz(chat_id, await self.shown(row))
        except Exception as exc:  # the adapter's own errors are outcomes; anything else is logged here
            log.exception("quiz_post_failed", chat=chat_key, quiz=row.id)
            return PostedQuiz("failed", type(exc).__name__)

    async def shown(self, row: QuizRow) -> QuizPost:
        """The quiz as the chat sees it (its script)."""
        script = (await self._settings.get(row.chat_key)).script or "simplified"
        c = self._convert
        return QuizPost(
            row.id or 0,
            c(row.question, script),
            tuple(c(o, script) for o in row.options.split("\n")),
            row.correct,
            c(row.explanation, script),
            self.open_s,
        )

    # ------------------------------------------------------------------ answers
    async def answer_poll(self, poll_id: str, account: str | None, name: str, option_ids: list[int]) -> str:
        """A Telegram poll answer: "scored", or why it was ignored ("unknown", "retracted", "no_person",
        "late", "bad_option", "duplicate")."""
        if account is None:
            return _ignored("no_person", poll=poll_id)
        row = await self.repo.by_poll(poll_id)
        if row is None:
            return _ignored("unknown", poll=poll_id)
        if not option_ids:
            return _ignored("retracted", quiz=row.id)
        if self._now() > _aware(row.closes_at) + timedelta(seconds=self.late_s):
            return _ignored("late", quiz=row.id)
        return await self._score(row, account, name, option_ids[0])

    async def answer_button(self, quiz_id: int, account: str, name: str, option: int) -> str:
        """A Discord button press: the one line the presser sees (only them)."""
        row = await self.repo.get(quiz_id)
        if row is None or row.status not in ("open", "closed"):
            _ignored("unknown", quiz=quiz_id)
            return say("QUIZ_UNKNOWN", None)
        if row.status == "closed" or self._now() >= _aware(row.closes_at):
            _ignored("closed", quiz=quiz_id)
            return say("QUIZ_CLOSED", None)
        outcome = await self._score(row, account, name, option)
        if outcome == "duplicate":
            return say("QUIZ_ALREADY", None)
        if outcome != "scored":
            return say("QUIZ_UNKNOWN", None)
        options = row.options.split("\n")
        key = "QUIZ_RIGHT" if option == row.correct else "QUIZ_WRONG"
        return say(key, None, answer=options[row.correct]) + "\n" + row.explanation

    async def _score(self, row: QuizRow, account: str, name: str, option: int) -> str:
        if not 0 <= option < len(row.options.split("\n")):
            return _ignored("bad_option", quiz=row.id)
        now = self._now()
        day = now.astimezone(await self._zone(row.chat_key)).date()
        if not await self.repo.answer(row, account, name, option, day=day, now=now):
            return _ignored("duplicate", quiz=row.id)
        log.info("quiz_answer_scored", quiz=row.id, chat=row.chat_key, correct=option == row.correct)
        return "scored"

    # ------------------------------------------------------------------ closing
    async def close_due(self) -> int:
        """Close every quiz whose time is up; returns how many this process closed."""
        closed = 0
        platforms = self._posters.platforms()
        for row in await self.repo.due(self._now()):
            if row.chat_key.split(":", 1)[0] not in platforms:  # its platform's process shows the close
                continue
            if not await self.repo.close(row.id or 0, self._now()):
                continue
            closed += 1
            answers = await self.repo.tally(row.id or 0)
            right = sum(1 for a in answers if a.correct)
            log.info("quiz_closed", quiz=row.id, chat=row.chat_key, answers=len(answers), right=right)
            platform, chat_id = row.chat_key.split(":", 1)
            poster = self._posters.get(platform)
            if isinstance(poster, QuizPoster) and row.message_id:
                names = "、".join(a.name or "?" for a in answers if a.correct)[:300]
                summary = say("QUIZ_RESULT", None, right=right, answered=len(answers), names=names or "—")
                try:
                    await poster.close_quiz(chat_id, row.message_id, await self.shown(row), summary)
                except Exception as exc:
                    log.warning("quiz_close_not_shown", quiz=row.id, error=type(exc).__name__)
        return closed

    async def run(self, stop: asyncio.Event, every_s: float = 5.0) -> None:
        """Close quizzes as their time runs out, until `stop` is set."""
        while not stop.is_set():
            try:
                await self.close_due()
            except Exception:
                log.exception("quiz_close_failed")
            try:
                await asyncio.wait_for(stop.wait(), every_s)
            except TimeoutError:
                pass

    async def _zone(self, chat_key: str) -> ZoneInfo:
        settings = await self._settings.get(chat_key)
        chosen = settings.quiz or settings.daily
        try:
            return ZoneInfo(chosen.zone if chosen else DEFAULT_ZONE)
        except (KeyError, ValueError):
            return ZoneInfo(DEFAULT_ZONE)

    async def zone(self, chat_key: str) -> ZoneInfo:
        """The zone a chat's days and weeks are counted in (its quiz's, else its daily passage's)."""
        return await self._zone(chat_key)


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _ignored(why: str, **fields: object) -> str:
    log.info("quiz_answer_ignored", why=why, **fields)
    return why


def streak(days: set[date], today: date) -> int:
    """Days in a row with a right answer, ending today (or yesterday: today's quiz may be to come)."""
    day = today if today in days else today - timedelta(days=1)
    n = 0
    while day in days:
        n += 1
        day -= timedelta(days=1)
    return n
