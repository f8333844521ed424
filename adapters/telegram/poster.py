"""Scheduled posts into Telegram chats (the `core.schedule.ports.Poster` of this adapter).

Target: the chat id the core knows, i.e. the chat, or a forum topic (`<chat>/<topic>` becomes
``message_thread_id``): a daily passage set inside a topic goes to that topic. Pacing is the same as
for replies: the chat's :class:`OutboundBudget` (shared with live replies, so a post and an answer
in one group keep their interval) and the bot-wide :class:`PriorityRateLimiter`, where scheduled posts
queue behind every live reply's requests (priority "scheduled").

Outcomes: "sent"; "gone" for a 403 (bot blocked by the user, removed from the group) and for chats
or topics that no longer exist, lost rights or a group that became a supergroup — never retried;
"failed" when a 429 or a network error outlasts `ATTEMPTS`. HTML Telegram rejects is re-sent plain.
"""

from __future__ import annotations

import asyncio
import warnings
from datetime import timedelta
from typing import Any

import structlog
from telegram import Bot, LinkPreviewOptions
from telegram.constants import MessageLimit, ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter

from adapters.common.budget import BudgetRegistry
from adapters.common.split import split_text
from adapters.telegram.markdown import to_html
from adapters.telegram.ratelimit import PriorityRateLimiter, Ticket
from adapters.telegram.sink import rendered_length
from core.quiz.ports import PostedQuiz, QuizPost
from core.schedule.ports import Posted
from core.shown_in import ShownIn

log = structlog.get_logger(__name__)

ATTEMPTS = 4
_GONE = ("chat not found", "thread not found", "not enough rights", "have no rights", "topic_closed", "bot was kicked")
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


class _Gone(Exception):
    pass


class TelegramPoster:
    """Posts into Telegram chats for the scheduler.

    Args:
        bot: the running application's bot (its rate limiter applies).
        budgets: the per-chat budgets the reply handlers use.
        private_interval_s / group_interval_s: per-chat pacing (TELEGRAM_EDIT_INTERVAL_*).
    """

    def __init__(
        self, bot: Bot, budgets: BudgetRegistry, *, private_interval_s: float = 1.0, group_interval_s: float = 3.0
    ) -> None:
        self.bot, self.budgets = bot, budgets
        self.private_interval_s, self.group_interval_s = private_interval_s, group_interval_s
        self.rate_limited = 0

    async def post_quiz(self, chat_id: str, quiz: QuizPost) -> PostedQuiz:
        """A quiz poll (adapters/telegram/quiz.py), paced by the chat's budget like any post."""
        from adapters.telegram.quiz import send_quiz

        chat = chat_id.partition("/")[0]
        budget = self.budgets.get(chat, self.group_interval_s if chat.startswith("-") else self.private_interval_s)
        await budget.acquire()
        try:
            return await send_quiz(self.bot, chat_id, quiz)
        finally:
            await budget.done()

    async def close_quiz(self, chat_id: str, message_id: str, quiz: QuizPost, summary: str) -> None:
        """Nothing to do: Telegram closes a quiz poll at the end of its ``open_period``."""

    async def post(self, chat_id: str, text: str) -> Posted:
        chat, _, topic = chat_id.partition("/")
        try:
            target = int(chat)
            thread = int(topic) if topic else None
        except ValueError:
            return Posted("gone", f"not a Telegram chat id: {chat_id[:40]}")
        interval = self.group_interval_s if target < 0 else self.private_interval_s
        budget = self.budgets.get(chat, interval)
        shown: list[ShownIn] = []  # a reaction names the chat, never the forum topic
        try:
            for part in split_text(text, MessageLimit.MAX_TEXT_LENGTH, rendered_length):
                message_id = await self._send(target, thread, part, budget)
                if message_id is None:
                    return Posted("failed", "rate limited or unreachable", tuple(shown))
                shown.append(ShownIn("telegram", chat, message_id))
        except _Gone as gone:
            return Posted("gone", str(gone)[:200], tuple(shown))
        return Posted("sent", "", tuple(shown))

    async def _send(self, chat: int, thread: int | None, part: str, budget) -> int | None:
        html = True
        for attempt in range(1, ATTEMPTS + 1):
            await budget.acquire()
            pause = 0.0
            try:
                kwargs: dict[str, Any] = dict(chat_id=chat, message_thread_id=thread, link_preview_options=_NO_PREVIEW)
                if html:
                    kwargs.update(text=to_html(part), parse_mode=ParseMode.HTML)
                else:
                    kwargs.update(text=part)
                if isinstance(getattr(self.bot, "rate_limiter", None), PriorityRateLimiter):
                    kwargs["rate_limit_args"] = Ticket("scheduled")
                message = await self.bot.send_message(**kwargs)
                return message.message_id
            except RetryAfter as exc:
                self.rate_limited += 1
                pause = _seconds(exc)
                log.warning("telegram_post_rate_limited", chat=chat, retry_after_s=_seconds(exc), attempt=attempt)
            except Forbidden as exc:
                raise _Gone(f"403 {exc.message}") from None
            except ChatMigrated as exc:
                raise _Gone(f"group became supergroup {exc.new_chat_id}") from None
            except BadRequest as exc:
                text = exc.message.lower()
                if any(word in text for word in _GONE):
                    raise _Gone(f"400 {exc.message}") from None
                if html and ("parse entities" in text or "can't find end" in text or "unsupported start tag" in text):
                    html = False
                    continue
                log.error("telegram_post_rejected", chat=chat, error=exc.message[:120])
                return None
            except NetworkError as exc:
                log.warning("telegram_post_retry", chat=chat, error=type(exc).__name__, attempt=attempt)
                await asyncio.sleep(min(8.0, 0.5 * 2**attempt))
            finally:  # the slot's end (and a 429's pause) reaches the gate other processes share too
                await budget.done(pause=pause)
        return None


def _seconds(exc: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB 22 warns that the int form becomes a timedelta later
        warnings.simplefilter("ignore")
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
