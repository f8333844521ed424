"""Group quizzes on Telegram: native quiz polls out, `poll_answer` updates in (core/quiz).

`send_quiz` sends ``sendPoll`` with ``type=quiz``, ``is_anonymous=False`` (only then do answers
arrive as ``poll_answer`` updates, which the bot asks for in ``allowed_updates``), the right option
as Bot API 9's ``correct_option_ids`` (no revoting: the first answer is the one scored) and the explanation (≤ 200 characters, citing the passage),
open for the quiz's ``open_period``. Telegram closes the poll itself, so closing needs nothing here.
A ``poll_answer`` names the poll and the voter, never the chat: the core finds the quiz by poll id.
"""

from __future__ import annotations

from typing import Any

import structlog
from telegram import Bot, PollAnswer
from telegram.constants import PollType
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter

from adapters.telegram.ratelimit import PriorityRateLimiter, Ticket
from core.quiz.ports import PostedQuiz, QuizAnswers, QuizPost

log = structlog.get_logger(__name__)

_GONE = ("chat not found", "thread not found", "not enough rights", "have no rights", "bot was kicked")


async def send_quiz(bot: Bot, chat_id: str, quiz: QuizPost) -> PostedQuiz:
    """One quiz poll into `chat_id` (`<chat>/<topic>` for a forum topic)."""
    chat, _, topic = chat_id.partition("/")
    try:
        target, thread = int(chat), (int(topic) if topic else None)
    except ValueError:
        return PostedQuiz("gone", f"not a Telegram chat id: {chat_id[:40]}")
    kwargs: dict[str, Any] = dict(
        chat_id=target,
        question=quiz.question,
        options=list(quiz.options),
        is_anonymous=False,
        type=PollType.QUIZ,
        allows_revoting=False,
        correct_option_ids=[quiz.correct],
        explanation=quiz.explanation,
        open_period=quiz.open_s,
        message_thread_id=thread,
    )
    if isinstance(getattr(bot, "rate_limiter", None), PriorityRateLimiter):
        kwargs["rate_limit_args"] = Ticket("final")
    try:
        message = await bot.send_poll(**kwargs)
    except Forbidden as exc:
        return PostedQuiz("gone", f"403 {exc.message}"[:200])
    except ChatMigrated as exc:
        return PostedQuiz("gone", f"group became supergroup {exc.new_chat_id}")
    except BadRequest as exc:
        gone = any(word in exc.message.lower() for word in _GONE)
        log.warning("telegram_quiz_rejected", chat=target, error=exc.message[:120])
        return PostedQuiz("gone" if gone else "failed", f"400 {exc.message}"[:200])
    except (RetryAfter, NetworkError) as exc:
        return PostedQuiz("failed", type(exc).__name__)
    poll_id = message.poll.id if message.poll is not None else None
    if poll_id is None:
        return PostedQuiz("failed", "no poll in the answer")
    return PostedQuiz("sent", poll_id=poll_id, message_id=str(message.message_id))


async def record_poll_answer(quizzes: QuizAnswers, answer: PollAnswer) -> str:
    """Hand one ``poll_answer`` to the core; an anonymous admin voting as the chat is no person."""
    user = answer.user
    account = f"telegram:{user.id}" if user is not None else None
    name = user.full_name if user is not None else ""
    return await quizzes.answer_poll(answer.poll_id, account, name, list(answer.option_ids))
