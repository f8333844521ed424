"""PTB handlers: route updates to the engine and stream its answer back.

The adapter translates; the engine decides. Every addressed message becomes one
``engine.handle(Incoming)`` call whose events are streamed by :class:`StreamingReply` into a
:class:`TelegramSink`, paced by the chat's :class:`OutboundBudget`. One reply at a time per user is
the engine's rule (it answers ``Notice(reason="busy")``); ``/cancel`` goes to the engine, which stops
the running reply; that reply then ends with what was shown plus "（已停止）".
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import replace

import structlog
from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from adapters.common.budget import BudgetRegistry
from adapters.common.lifecycle import ReplyLifecycle
from adapters.common.metrics import RateLimitRecorder
from adapters.common.stream import StreamingReply
from adapters.telegram.inline import answer_inline
from adapters.telegram.media import AlbumGate, media_of, quoted_media, record_reaction
from adapters.telegram.quiz import record_poll_answer
from adapters.telegram.reading import READ_COMMAND, ReadingRoomLink, answer_read
from adapters.telegram.routing import Route, incoming_for, route, strip_mention
from adapters.telegram.settings import TelegramSettings
from adapters.telegram.settings_ui import SETTINGS_CALLBACK_PREFIX, press_settings
from adapters.telegram.sink import COMMAND_CALLBACK_PREFIX, SKILL_CALLBACK_PREFIX, TelegramSink
from core.events import Notice, ReplyEvent
from core.inbox.seen import Seen
from core.logging import bind_trace
from core.ports import Engine
from core.quiz.ports import QuizAnswers
from core.shown_in import ShownIn
from core.texts import say
from core.types import Incoming

log = structlog.get_logger(__name__)

TYPING_REFRESH_S = (
    4.5  # "typing" lasts 5 s in Telegram's clients; refreshed before it fades (was TELEGRAM_TYPING_REFRESH_S)
)
PLACEHOLDER = "翻检典籍中…"  # the first message of a reply (no "typing" before it), until the first words arrive
# A reply shows its placeholder after a short grace, so instant answers (commands, notices) skip it;
# while at least BURST_REPLIES replies stream at once the grace is skipped: the bot-wide limit is the
# wait then, and a placeholder still queued when the answer comes is withdrawn, never sent.
GRACE_S, BURST_REPLIES = 0.3, 10
NON_TEXT_NOTICE = "我目前只读得懂文字消息，请用文字提问。(I can only read text messages for now.)"


class TelegramHandlers:
    """The callbacks registered on the PTB application.

    Args:
        engine: the chat engine.
        settings: Telegram settings (pacing intervals).
        budgets: per-chat outbound budgets, shared by every reply in a chat.
        recorder: counts the 429s Telegram answered (metrics), or None.
    """

    def __init__(
        self,
        engine: Engine,
        settings: TelegramSettings,
        budgets: BudgetRegistry | None = None,
        recorder: RateLimitRecorder | None = None,
        seen: Seen | None = None,
        *,
        reading: ReadingRoomLink | None = None,
    ) -> None:
        self.engine, self.settings, self.recorder = engine, settings, recorder
        self.reading = reading  # FUZI_WEB_PUBLIC_URL: `/read` opens the reading room
        self.budgets = budgets or BudgetRegistry()
        self.albums = AlbumGate(seen)  # an album (media group) is answered once
        self.quizzes: QuizAnswers | None = None  # quiz poll answers go there (core/quiz)
        self.streaming = 0  # replies streaming now

    # ------------------------------------------------------------------ updates

    async def on_message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or update.edited_message is not None:
            return
        r = route(message, context.bot.id, context.bot.username)
        if r is None:
            return
        if r.kind == "command" and r.command == READ_COMMAND:
            await answer_read(context.bot, message, self.reading)
            return
        incoming = incoming_for(message, r)
        if r.kind == "context":
            with bind_trace(incoming):
                await self._observe(incoming)
            return
        if r.kind != "command":
            with_media = await self._with_media(message, incoming, r, context)
            if with_media is None:
                return
            incoming = with_media
        if r.kind == "non_text" and not incoming.media:
            with bind_trace(incoming):
                await self._reply(
                    context,
                    message,
                    incoming,
                    _one(Notice(NON_TEXT_NOTICE, reason="bad_input", trace_id=incoming.trace_id)),
                )
            return
        await self._answer(context, message, incoming)

    async def _with_media(self, message: Message, incoming: Incoming, r: Route, context) -> Incoming | None:
        """The message's photo, voice or file (its caption as the text), else a quoted photo when the
        message addresses Fuzi; None for the second and later items of an album (answered once)."""
        media = media_of(message, context.bot)
        if media:
            if not await self.albums.first(message):
                return None
            return replace(incoming, text=strip_mention(message.caption or "", context.bot.username), media=media)
        if r.kind == "text" and message.reply_to_message is not None:
            return replace(incoming, media=quoted_media(message, context.bot))
        return incoming

    async def on_reaction(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A reaction on a message: feedback when the message is one of Fuzi's answers."""
        if update.message_reaction is not None:
            await record_reaction(self.engine, update.message_reaction)

    async def on_poll_answer(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """An answer to one of Fuzi's quiz polls: scored once by the core (adapters/telegram/quiz.py)."""
        if update.poll_answer is None or self.quizzes is None:
            return
        outcome = await record_poll_answer(self.quizzes, update.poll_answer)
        log.info("telegram_poll_answer", outcome=outcome)

    async def on_callback(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None:
            return
        data = query.data or ""
        if data.startswith(SETTINGS_CALLBACK_PREFIX):
            await self._settings_press(query, data[len(SETTINGS_CALLBACK_PREFIX) :])
            return
        try:
            await query.answer()  # stops the button's spinner; too old a query cannot be answered
        except TelegramError as exc:
            log.info("callback_not_answered", error=type(exc).__name__)
        message = query.message if isinstance(query.message, Message) else None
        if message is None:
            return
        if data.startswith(COMMAND_CALLBACK_PREFIX):  # "do:recite rate 12 hard": the command, as the presser
            command, _, args = data[len(COMMAND_CALLBACK_PREFIX) :].partition(" ")
            r = Route("command", args, command)
        elif data.startswith(SKILL_CALLBACK_PREFIX):
            r = Route("command", data[len(SKILL_CALLBACK_PREFIX) :], "skill")
        else:
            return
        incoming = incoming_for(message, r, user=query.from_user)
        await self._answer(context, message, incoming, quote=False)

    async def _settings_press(self, query: CallbackQuery, args: str) -> None:
        """A settings button: the engine decides for the presser; refusals pop up, changes edit the menu."""
        message = query.message if isinstance(query.message, Message) else None
        if message is None:
            return
        incoming = incoming_for(message, Route("command", args, "settings"), user=query.from_user)
        with bind_trace(incoming):
            await press_settings(self.engine, query, message, incoming)

    async def on_inline(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """`@bot words` in any chat: cited passages from retrieval (adapters/telegram/inline.py)."""
        if update.inline_query is not None:
            await answer_inline(self.engine, update.inline_query)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Errors PTB caught outside our own try blocks (e.g. while reading an update)."""
        log.error("telegram_update_failed", error=type(context.error).__name__, exc_info=context.error)

    # ------------------------------------------------------------------ replies

    async def _observe(self, incoming: Incoming) -> None:
        """Hand group chatter to the engine as context; whatever it yields is not shown."""
        try:
            async for event in self.engine.handle(incoming):
                log.debug("context_event_ignored", trace_id=incoming.trace_id, kind=event.kind)
        except Exception as exc:
            log.warning(
                "telegram_context_failed", trace_id=incoming.trace_id, chat=incoming.chat_id, error=type(exc).__name__
            )

    async def _answer(self, context, message: Message, incoming: Incoming, *, quote: bool = True) -> None:
        with bind_trace(incoming):  # every log line of this reply carries trace_id, chat and user
            log.info("telegram_incoming", command=incoming.command)
            await self._reply(context, message, incoming, self.engine.handle(incoming), quote=quote)

    async def _reply(self, context, message: Message, incoming: Incoming, events, *, quote: bool = True) -> None:
        """Stream ``events`` into ``message``'s chat; in groups the first message quotes the question."""
        group = message.chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)
        reply_to = message.message_id if group and quote else None
        sink = TelegramSink(
            context.bot,
            message.chat.id,
            reply_to=reply_to,
            thread_id=message.message_thread_id if message.is_topic_message else None,
        )
        interval = self.settings.edit_interval_group_s if group else self.settings.edit_interval_private_s
        budget = self.budgets.get(str(message.chat.id), interval)
        chat = str(message.chat.id)  # a reaction names the chat, never the forum topic
        life = ReplyLifecycle(
            self.engine, "telegram", incoming.trace_id, lambda handle: ShownIn("telegram", chat, handle)
        )
        streaming = StreamingReply(
            sink,
            budget,
            trace_id=incoming.trace_id,
            placeholder=PLACEHOLDER,
            placeholder_first=True,
            first_typing_after=0.0 if self.streaming >= BURST_REPLIES else GRACE_S,
            typing_every=TYPING_REFRESH_S,
            on_shown=life.shown,
            on_part=life.part,
            clock=budget.clock,
            footnote_link=self.reading.citation_link(context.bot.username) if self.reading else None,
            sleep=budget.sleep,
        )
        self.streaming += 1
        try:
            stats = await life.stream(streaming, events)
        except Exception as exc:
            log.exception("telegram_reply_failed", trace_id=incoming.trace_id, error=type(exc).__name__)
            await self._apologize(context, message, incoming.trace_id)
            return
        finally:
            self.streaming -= 1
        log.info(
            "telegram_replied",
            outcome=stats.outcome,
            sends=stats.sends,
            edits=stats.edits,
            rate_limited=stats.rate_limited,
            final_retries=stats.final_retries,
            delivered=stats.delivered,
        )
        if self.recorder is not None:
            self.recorder.rate_limited("telegram", stats.rate_limited)

    async def _apologize(self, context, message: Message, trace_id: str) -> None:
        try:
            await context.bot.send_message(
                chat_id=message.chat.id,
                text=say("ERROR", None, trace=trace_id),
                message_thread_id=message.message_thread_id if message.is_topic_message else None,
            )
        except Exception as exc:  # the chat may be gone or flooded; the log line above has the trace
            log.warning("telegram_apology_failed", trace_id=trace_id, error=type(exc).__name__)


async def _one(event: ReplyEvent) -> AsyncGenerator[ReplyEvent, None]:
    yield event
