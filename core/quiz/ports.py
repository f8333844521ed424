"""What the quiz needs from a platform: post a quiz into a chat, and close it there.

A platform's scheduled-post `Poster` (core/schedule/ports.py, registered in `Posters` by its adapter)
also posts quizzes when it implements `QuizPoster`: Telegram sends a native quiz poll (`sendPoll`,
type quiz, not anonymous, so answers arrive as `poll_answer` updates); Discord sends a message with
one button per option and edits it into the results when the quiz closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from core.schedule.ports import PostStatus


@dataclass(frozen=True)
class QuizPost:
    """A quiz as a platform shows it (already in the chat's script).

    Attributes:
        quiz_id: the quiz's row id (Discord buttons carry it: `fuzi:quiz:<id>:<option>`).
        open_s: seconds it stays open (Telegram's `open_period`).
    """

    quiz_id: int
    question: str
    options: tuple[str, ...]
    correct: int
    explanation: str
    open_s: int


@dataclass(frozen=True)
class PostedQuiz:
    """How posting a quiz ended ("sent", "gone", "failed"); the poll id (Telegram) and the message id."""

    status: PostStatus
    detail: str = ""
    poll_id: str | None = None
    message_id: str | None = None


@runtime_checkable
class QuizPoster(Protocol):
    async def post_quiz(self, chat_id: str, quiz: QuizPost) -> PostedQuiz: ...

    async def close_quiz(self, chat_id: str, message_id: str, quiz: QuizPost, summary: str) -> None:
        """Show the quiz closed with `summary` (Discord: the message edited, buttons removed); Telegram
        closes its poll itself at the end of `open_period`."""
        ...


class QuizAnswers(Protocol):
    """What the adapters hand answers to (core.quiz.service.QuizService implements it)."""

    async def answer_poll(self, poll_id: str, account: str | None, name: str, option_ids: list[int]) -> str:
        """A Telegram `poll_answer` (`account` None: voted as a chat): "scored" or why it was ignored."""
        ...

    async def answer_button(self, quiz_id: int, account: str, name: str, option: int) -> str:
        """A Discord button press: the one line shown to the presser alone."""
        ...
