"""`/quiz` and `/leaderboard`: the commands every platform shares (Discord as slash commands).

/quiz in a direct chat is refused with one line (quizzes are for groups; /recite is the solo
practice). A second /quiz while one is open answers one line with the time left; the engine's
per-person and per-group limits apply to the command like to any other.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from core.ports import CommandResult, Turn
from core.texts import say, wait_phrase

if TYPE_CHECKING:
    from core.quiz.service import QuizService

STREAK_LOOKBACK_DAYS = 366
BOARD_SIZE = 10


class QuizCommands:
    """The handlers (register with `register(router)`).

    Args:
        quizzes: the quiz service, or what builds it at the first command (bot/schedule.py's
            `QuizzesOnDemand`: a start does not import core/quiz's tables and service).
    """

    def __init__(self, quizzes: QuizService | Callable[[], QuizService]) -> None:
        self._service = quizzes

    @property
    def _quizzes(self) -> QuizService:
        return self._service() if callable(self._service) else self._service

    def register(self, router) -> None:
        router.register(
            "quiz", self.quiz, summary_zh="群里出一道经典小测", summary_en="A quiz on the classics (groups)"
        )
        router.register(
            "leaderboard",
            self.leaderboard,
            summary_zh="本周（或 all 全部）小测排行",
            summary_en="Quiz scores (all: all time)",
        )

    async def quiz(self, turn: Turn, args: str) -> CommandResult:
        incoming = turn.incoming
        if not incoming.is_group:
            return CommandResult(say("QUIZ_GROUPS_ONLY", None), extra={"refused": "groups_only"})
        started = await self._quizzes.start(incoming.chat_key)
        if started.status == "posted":
            minutes = max(1, self._quizzes.open_s // 60)
            return CommandResult(
                say("QUIZ_POSTED", None, minutes=minutes), extra={"quiz": started.row.id if started.row else None}
            )
        if started.status == "open":
            when = f"{wait_phrase(started.left_s, 'zh')} / {wait_phrase(started.left_s, 'en')}"
            return CommandResult(say("QUIZ_OPEN", None, when=when), extra={"refused": "open"})
        if started.status == "no_platform":
            return CommandResult(say("QUIZ_NO_PLATFORM", None), extra={"refused": "no_platform"})
        return CommandResult(say("QUIZ_FAILED", None), extra={"refused": started.status})

    async def leaderboard(self, turn: Turn, args: str) -> CommandResult:
        from core.quiz.service import streak  # imported with the service (`_quizzes`)

        chat_key = turn.incoming.chat_key
        all_time = args.strip().lower() in ("all", "全部", "总")
        zone = await self._quizzes.zone(chat_key)
        local_now = self._quizzes.now().astimezone(zone)
        today = local_now.date()
        monday = datetime.combine(today - timedelta(days=today.weekday()), datetime.min.time(), tzinfo=zone)
        scores = await self._quizzes.repo.scores(chat_key, None if all_time else monday, BOARD_SIZE)
        if not scores:
            return CommandResult(say("BOARD_EMPTY", None), extra={"scores": []})
        since = today - timedelta(days=STREAK_LOOKBACK_DAYS)
        days = await self._quizzes.repo.right_days(chat_key, [s.account for s in scores], since)
        title = say("BOARD_ALL" if all_time else "BOARD_WEEK", None)
        lines, rows = [title], []
        for rank, s in enumerate(scores, 1):
            n = streak(days.get(s.account, set()), today)
            lines.append(
                say("BOARD_LINE", "zh", rank=rank, who=s.name or "?", right=s.right, answered=s.answered, streak=n)
            )
            rows.append({"name": s.name, "right": s.right, "answered": s.answered, "streak": n})
        return CommandResult("\n".join(lines), extra={"scores": rows})
