"""The Telegram side of one streamed reply: a :class:`adapters.common.stream.MessageSink`.

Previews are plain text. Final parts are rendered to HTML (see :mod:`adapters.telegram.markdown`);
if Telegram rejects the entities, the same part is re-sent as plain text. "Message is not modified"
is not an error; an edit whose message vanished becomes a new message. ``RetryAfter`` becomes
:class:`RateLimited` so the streaming logic pauses the chat; a 5xx or network error (PTB's
``NetworkError`` other than ``BadRequest``) becomes :class:`TransientDelivery`, which it retries.
A timed-out ``sendMessage`` may have arrived anyway, so a retried final part can rarely show twice;
losing the answer would be worse.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import structlog
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions, ReplyParameters
from telegram.constants import ChatAction, MessageLimit, ParseMode
from telegram.error import BadRequest, NetworkError, RetryAfter

from adapters.common.render import truncate
from adapters.common.split import split_text
from adapters.common.stream import RateLimited, TransientDelivery, Withdrawn
from adapters.telegram.markdown import to_html, utf16_len
from adapters.telegram.ratelimit import PriorityRateLimiter, Ticket
from adapters.telegram.settings_ui import settings_keyboard

log = structlog.get_logger(__name__)

SKILL_CALLBACK_PREFIX = "skill:"
COMMAND_CALLBACK_PREFIX = (
    "do:"  # "do:<command> <args>": a button that runs a command as its presser (/recite's ratings)
)
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


def rendered_length(markdown: str) -> int:
    """Length of a Markdown part once converted to HTML (an upper bound of what Telegram counts)."""
    return utf16_len(to_html(markdown))


def choices_keyboard(extra: Mapping | None) -> InlineKeyboardMarkup | None:
    """Inline keyboard for a notice offering choices (``/skill``): one button per choice; the
    settings keyboard for ``/settings`` (adapters/telegram/settings_ui.py)."""
    if extra and "settings" in extra:
        return settings_keyboard(extra)
    if extra and extra.get("actions"):
        return actions_keyboard(extra)
    choices = (extra or {}).get("choices") or []
    if not choices:
        return None
    current = (extra or {}).get("current")
    rows = []
    for choice in choices:
        name, label = (choice[0], choice[1]) if isinstance(choice, (list, tuple)) else (choice, choice)
        mark = "✓ " if name == current else ""
        data = f"{SKILL_CALLBACK_PREFIX}{name}"[:64]
        rows.append([InlineKeyboardButton(f"{mark}{label}", callback_data=data)])
    return InlineKeyboardMarkup(rows)


def actions_keyboard(extra: Mapping) -> InlineKeyboardMarkup:
    """One row of buttons for ``extra["actions"]`` [(label, command, args)]; the one whose last
    argument is ``extra["current"]`` is marked. A press runs ``/command args`` as the presser."""
    current = extra.get("current")
    row = [
        InlineKeyboardButton(
            ("✓ " if str(args).split()[-1:] == [current] else "") + str(label),
            callback_data=f"{COMMAND_CALLBACK_PREFIX}{command} {args}"[:64],
        )
        for label, command, args in extra["actions"]
    ]
    return InlineKeyboardMarkup([row])


def _is_parse_error(exc: BadRequest) -> bool:
    text = exc.message.lower()
    return "can't parse entities" in text or "can't find end" in text or "unsupported start tag" in text


def _retry_seconds(exc: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB 22 warns that the int form becomes a timedelta later
        warnings.simplefilter("ignore")
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class TelegramSink:
    """Messages of one reply in one Telegram chat (and forum topic).

    Args:
        bot: the PTB bot (its rate limiter applies the global cap).
        chat_id: Telegram chat id.
        reply_to: message id the first message replies to (used in groups), or None.
        thread_id: forum topic id, or None.
        limit: maximum message length (Telegram: 4096).
    """

    def __init__(
        self,
        bot: Bot,
        chat_id: int,
        *,
        reply_to: int | None = None,
        thread_id: int | None = None,
        limit: int = MessageLimit.MAX_TEXT_LENGTH,
    ) -> None:
        self.bot, self.chat_id, self.reply_to, self.thread_id, self.limit = bot, chat_id, reply_to, thread_id, limit
        self.fallbacks = 0
        self.shown = False  # a message of this reply is visible

    def withdraw(self) -> None:
        """Withdraw this reply's preview requests still waiting in the global limiter."""
        limiter = getattr(self.bot, "rate_limiter", None)
        if isinstance(limiter, PriorityRateLimiter):
            limiter.withdraw(self)

    def fit_preview(self, text: str) -> str:
        return truncate(text, self.limit, utf16_len)

    def split_final(self, text: str) -> list[str]:
        return split_text(text, self.limit, rendered_length)

    async def typing(self) -> None:
        """Show "typing" — except in a group once the reply shows: its 20 requests a minute go to text."""
        if self.shown and self.chat_id < 0:
            raise Withdrawn()  # never sent: StreamingReply gives the chat's slot back
        await self._call(
            self.bot.send_chat_action,
            "typing",
            chat_id=self.chat_id,
            action=ChatAction.TYPING,
            message_thread_id=self.thread_id,
        )

    async def send(self, text: str, *, final: bool = False, extra: Mapping | None = None) -> int:
        markup = choices_keyboard(extra)
        reply = ReplyParameters(self.reply_to, allow_sending_without_reply=True) if self.reply_to else None
        kwargs: dict[str, Any] = dict(
            chat_id=self.chat_id,
            message_thread_id=self.thread_id,
            reply_parameters=reply,
            reply_markup=markup,
            link_preview_options=_NO_PREVIEW,
        )
        message = await self._formatted(self.bot.send_message, text, final, kwargs, "first")
        self.reply_to, self.shown = None, True  # only the first message of a reply quotes the question
        return message.message_id

    async def edit(self, handle: int, text: str, *, final: bool = False, extra: Mapping | None = None) -> int:
        kwargs: dict[str, Any] = dict(
            chat_id=self.chat_id,
            message_id=handle,
            reply_markup=choices_keyboard(extra),
            link_preview_options=_NO_PREVIEW,
        )
        try:
            await self._formatted(self.bot.edit_message_text, text, final, kwargs, "edit")
        except BadRequest as exc:
            message = exc.message.lower()
            if "not modified" in message:
                return handle
            if "message to edit not found" in message or "message can't be edited" in message:
                log.info("edit_target_gone", chat=self.chat_id, message=handle)
                return await self.send(text, final=final, extra=extra)
            raise
        return handle

    async def _formatted(self, method, text: str, final: bool, kwargs: dict, preview_priority: str) -> Any:
        if not final:
            return await self._call(method, preview_priority, text=text, **kwargs)
        try:
            return await self._call(method, "final", text=to_html(text), parse_mode=ParseMode.HTML, **kwargs)
        except BadRequest as exc:
            if not _is_parse_error(exc):
                raise
            self.fallbacks += 1
            log.warning("parse_rejected_resending_plain", chat=self.chat_id, error=exc.message[:120])
            return await self._call(method, "final", text=text, **kwargs)

    async def _call(self, method, priority: str, **kwargs) -> Any:
        """Call a Bot API method; ``priority`` goes to the global rate limiter when there is one."""
        if isinstance(getattr(self.bot, "rate_limiter", None), PriorityRateLimiter):
            kwargs["rate_limit_args"] = Ticket(priority, None if priority == "final" else self)
        try:
            return await method(**kwargs)
        except RetryAfter as exc:
            raise RateLimited(_retry_seconds(exc)) from exc
        except BadRequest:
            raise
        except NetworkError as exc:  # 5xx, timeouts, connection errors
            raise TransientDelivery(f"{type(exc).__name__}: {exc.message[:80]}") from exc
