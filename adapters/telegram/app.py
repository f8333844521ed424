"""Build and run the Telegram bot (python-telegram-bot v22 ``Application``).

Rate limiting has two layers. Bot-wide, :class:`PriorityRateLimiter` releases at most
``MAX_REQUESTS_PER_S`` chat requests per second on a steady schedule, final answers first, then
first messages, then edits, and "typing" only when nothing waits (PTB's FIFO :class:`AIORateLimiter`
is available as ``build_application(limiter="aio")``; the
benchmark in docs/telegram.md compares them). Neither retries a ``RetryAfter``: it reaches the
streaming code, which pauses only the chat concerned and coalesces its edits, instead of halting
every chat. Per chat, an :class:`OutboundBudget` spaces sends, edits and typing (1 s in private
chats, 3 s in groups, which keeps a group under 20 messages a minute).
"""

from __future__ import annotations

import asyncio
import re
from typing import Literal

import structlog
from telegram import BotCommand, Update
from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    BaseRateLimiter,
    CallbackQueryHandler,
    InlineQueryHandler,
    MessageHandler,
    MessageReactionHandler,
    PollAnswerHandler,
    filters,
)

from adapters.common import lifecycle
from adapters.common.budget import BudgetRegistry
from adapters.common.metrics import RateLimitRecorder
from adapters.common.pace import SharedPace
from adapters.common.startup import PlatformRejected, PlatformStatus, connect_with_backoff
from adapters.telegram.admins import TelegramAdmins
from adapters.telegram.handlers import TelegramHandlers
from adapters.telegram.intake import PLATFORM, InboxProcessor, InboxQueue, inbox_handlers
from adapters.telegram.poster import TelegramPoster
from adapters.telegram.ratelimit import PriorityRateLimiter
from adapters.telegram.reading import READ_COMMAND, READ_SUMMARY, ReadingRoomLink, set_menu_button
from adapters.telegram.settings import MAX_REQUESTS_PER_S, TelegramSettings
from adapters.telegram.webhook import install as install_strict_webhook
from core.inbox import Inbox, MemoryInboxStore
from core.inbox.seen import InMemorySeen, Seen
from core.ports import Engine
from core.quiz.ports import QuizAnswers
from core.schedule.ports import Posters
from core.shown_in import ShownIn
from core.texts import say

log = structlog.get_logger(__name__)

# message_reaction: 👍/👎 on answers are feedback (Telegram sends them in groups only to admin bots);
# poll_answer: the answers to quiz polls (core/quiz), sent only when asked for here.
ALLOWED_UPDATES = [
    Update.MESSAGE,
    Update.CALLBACK_QUERY,
    Update.INLINE_QUERY,
    Update.MESSAGE_REACTION,
    Update.POLL_ANSWER,
]
_COMMAND_NAME = re.compile(r"[a-z0-9_]{1,32}")


def build_application(
    settings: TelegramSettings,
    engine: Engine,
    *,
    budgets: BudgetRegistry | None = None,
    recorder: RateLimitRecorder | None = None,
    seen: Seen | None = None,
    inbox: Inbox | None = None,
    pace: SharedPace | None = None,
    limiter: Literal["priority", "aio"] = "priority",
    requests_per_s: float = MAX_REQUESTS_PER_S,
    reading: ReadingRoomLink | None = None,
    quizzes: QuizAnswers | None = None,
) -> Application:
    """A configured, not yet started PTB application for ``engine``.

    Args:
        settings: TELEGRAM_* settings; ``bot_token`` is required.
        engine: the chat engine (``handle``, ``commands``).
        budgets: per-chat outbound budgets (tests pass one with a fake clock).
        recorder: counts the 429s Telegram answered (metrics), or None.
        seen: which albums were answered already (default in process; `core.inbox.seen_redis.RedisSeen`
            shares it between webhook replicas).
        inbox: keeps every update until it is handled, drops repeats, and hands over what a dead
            process left (adapters/telegram/intake.py); default: in this process's memory only.
        pace: the bot-wide send schedule shared by N processes (`adapters.common.pace.RedisPace`).
        limiter: the bot-wide limiter, ours ("priority") or PTB's FIFO one ("aio", benchmarks only).
        requests_per_s: its rate (Telegram allows about 30 a second; tests use a tight one).
        reading: the reading room (FUZI_WEB_PUBLIC_URL): `/read`, the menu button; None: not open here.
        quizzes: where quiz poll answers go (core/quiz); None: they are ignored.
    """
    if settings.bot_token is None:
        raise ValueError("TELEGRAM_BOT_TOKEN is not set")
    bot_limiter = global_limiter(limiter, pace, requests_per_s)
    seen = seen or InMemorySeen()
    inbox = inbox or Inbox(MemoryInboxStore())
    handlers = TelegramHandlers(engine, settings, budgets, recorder, seen, reading=reading)
    handlers.quizzes = quizzes

    async def post_init(app: Application) -> None:
        await register_commands(app, engine, reading=reading is not None)
        if reading is not None:
            await set_menu_button(app.bot, reading)

    app = (
        Application.builder()
        .token(settings.bot_token.get_secret_value())
        .base_url(settings.api_base_url)
        .base_file_url(_file_url(settings.api_base_url))
        .rate_limiter(bot_limiter)
        .update_queue(InboxQueue(inbox))
        .concurrent_updates(InboxProcessor(inbox))
        .connection_pool_size(512)
        .pool_timeout(30.0)
        .post_init(post_init)
        .build()
    )
    app.bot_data["handlers"] = handlers
    app.bot_data["inbox"] = inbox
    engine.register_admin_check("telegram", TelegramAdmins(app.bot))
    app.add_handler(CallbackQueryHandler(handlers.on_callback))
    app.add_handler(InlineQueryHandler(handlers.on_inline))
    app.add_handler(MessageReactionHandler(handlers.on_reaction))
    app.add_handler(PollAnswerHandler(handlers.on_poll_answer))
    app.add_handler(MessageHandler(filters.UpdateType.MESSAGE & ~filters.StatusUpdate.ALL, handlers.on_message))
    app.add_error_handler(handlers.on_error)
    return app


def global_limiter(
    kind: str = "priority", pace: SharedPace | None = None, requests_per_s: float = MAX_REQUESTS_PER_S
) -> BaseRateLimiter:
    """The bot-wide limiter: our priority limiter (on the shared schedule `pace`, when given), or PTB's
    FIFO AIORateLimiter (kind "aio": for comparison; one process only)."""
    if kind == "aio":
        return AIORateLimiter(
            overall_max_rate=1, overall_time_period=1 / requests_per_s, group_max_rate=0, max_retries=0
        )
    return PriorityRateLimiter(requests_per_s, shared=pace)


def _file_url(api_base_url: str) -> str:
    base = api_base_url.rstrip("/")
    return base[: -len("/bot")] + "/file/bot" if base.endswith("/bot") else base + "/file/bot"


async def register_commands(app: Application, engine: Engine, *, reading: bool = False) -> None:
    """``setMyCommands`` with Chinese descriptions by default and for ``zh``, English for ``en``.

    Names Telegram would reject (not 1–32 of ``a-z0-9_``) are left out; a failure is logged and the
    bot runs on (the menu is a convenience, commands work without it).
    """
    commands = [(n, zh, en) for n, zh, en in engine.commands() if _COMMAND_NAME.fullmatch(n)]
    if reading:  # the adapter's own command (adapters/telegram/reading.py)
        commands.append((READ_COMMAND, *READ_SUMMARY))
    zh = [BotCommand(name, (summary_zh or summary_en or name)[:256]) for name, summary_zh, summary_en in commands]
    en = [BotCommand(name, (summary_en or summary_zh or name)[:256]) for name, summary_zh, summary_en in commands]
    try:
        await app.bot.set_my_commands(zh)
        await app.bot.set_my_commands(zh, language_code="zh")
        await app.bot.set_my_commands(en, language_code="en")
    except TelegramError as exc:
        log.warning("telegram_commands_not_registered", error=type(exc).__name__)
        return
    log.info("telegram_commands_registered", count=len(commands))


async def start(app: Application, settings: TelegramSettings, status: PlatformStatus | None = None) -> None:
    """Initialize, start and begin receiving updates (polling or webhook).

    Telegram unreachable (network, 5xx on ``getMe``): retried with backoff until it answers.

    Raises:
        PlatformRejected: Telegram refused the token (one line, without the token).
    """
    await connect_with_backoff(lambda: _initialize(app), platform="telegram", transient=(NetworkError,), status=status)
    await close_interrupted(app, app.bot_data["handlers"].engine)
    if app.post_init:
        await app.post_init(app)
    await app.start()
    updater = app.updater
    if updater is None:
        raise RuntimeError("the Telegram application was built without an updater")
    if settings.mode == "webhook":
        install_strict_webhook()  # bodies that are not updates: 400 and one line, not 500 / CRITICAL
        secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
        await updater.start_webhook(
            listen=settings.webhook_listen,
            port=settings.webhook_port,
            url_path=settings.webhook_path,
            webhook_url=settings.webhook_url,
            secret_token=secret,
            allowed_updates=ALLOWED_UPDATES,
        )
    else:
        await updater.start_polling(
            timeout=settings.poll_timeout_s,
            allowed_updates=ALLOWED_UPDATES,
            drop_pending_updates=False,
            error_callback=_polling_failed,  # the same batch is fetched again after a backoff
        )
    log.info("telegram_started", mode=settings.mode, bot=app.bot.username)


def _polling_failed(exc: TelegramError) -> None:
    log.warning("telegram_polling_failed", error=type(exc).__name__)


async def close_interrupted(app: Application, engine: Engine) -> None:
    """Edit each reply a crash froze half-way into a short "interrupted, please ask again" line."""

    async def correct(where: ShownIn) -> None:
        if where.message_id is not None:
            await app.bot.edit_message_text(
                say("INTERRUPTED", None), chat_id=int(where.chat), message_id=where.message_id
            )
        else:  # cut before anything was shown: say so in a new message (chat id [/ forum topic])
            chat, _, topic = where.chat.partition("/")
            thread = int(topic) if topic else None
            await app.bot.send_message(int(chat), say("INTERRUPTED", None), message_thread_id=thread)

    # deleted, too old to edit, malformed: nothing to correct
    await lifecycle.close_interrupted(engine, "telegram", correct, gone=(TelegramError, ValueError))


async def _initialize(app: Application) -> None:
    try:
        await app.initialize()
    except InvalidToken:  # its message quotes the token: never shown, never chained
        raise PlatformRejected(
            "Telegram rejected the bot token: check TELEGRAM_BOT_TOKEN (BotFather, /token)"
        ) from None
    except BadRequest as exc:
        raise PlatformRejected(
            f"Telegram refused to start the bot ({type(exc).__name__}); check TELEGRAM_API_BASE_URL"
        ) from None


async def stop(app: Application) -> None:
    """Stop receiving, let running handlers finish, and shut down."""
    if app.updater and app.updater.running:
        await app.updater.stop()
    if app.running:
        await app.stop()
    await app.shutdown()


async def run_telegram(
    settings: TelegramSettings,
    engine: Engine,
    *,
    stop_event: asyncio.Event | None = None,
    recorder: RateLimitRecorder | None = None,
    seen: Seen | None = None,
    inbox: Inbox | None = None,
    pace: SharedPace | None = None,
    budgets: BudgetRegistry | None = None,
    status: PlatformStatus | None = None,
    posters: Posters | None = None,
    reading: ReadingRoomLink | None = None,
    quizzes: QuizAnswers | None = None,
) -> None:
    """Run the bot until ``stop_event`` is set (or forever); usable beside the Discord bot.

    With ``posters``, the scheduler (core/schedule) may post into Telegram chats while the bot runs.
    Replies that died with another process are closed by the engine's repair sweep while this one
    runs; every REPAIR_EVERY_S their frozen messages here are corrected. Updates another process took
    and never answered are answered here (or, too old, the person is told): ``inbox``'s hand-over.
    """
    app = build_application(
        settings,
        engine,
        budgets=budgets,
        recorder=recorder,
        seen=seen,
        inbox=inbox,
        pace=pace,
        quizzes=quizzes,
        reading=reading,
    )
    await start(app, settings, status)
    app.bot_data["inbox"].register(PLATFORM, inbox_handlers(app))
    if posters is not None:
        posters.register("telegram", scheduled_poster(app, settings))
    repair = asyncio.create_task(_keep_repairing(app, engine), name="telegram-repair")
    try:
        await (stop_event or asyncio.Event()).wait()
    finally:
        repair.cancel()
        app.bot_data["inbox"].unregister(PLATFORM)
        if posters is not None:
            posters.unregister("telegram")
        await stop(app)


REPAIR_EVERY_S = 2.0


async def _keep_repairing(app: Application, engine: Engine) -> None:
    while True:
        await asyncio.sleep(REPAIR_EVERY_S)
        await close_interrupted(app, engine)


def scheduled_poster(app: Application, settings: TelegramSettings) -> TelegramPoster:
    """The scheduler's poster over this application's bot and the reply handlers' per-chat budgets."""
    return TelegramPoster(
        app.bot,
        app.bot_data["handlers"].budgets,
        private_interval_s=settings.edit_interval_private_s,
        group_interval_s=settings.edit_interval_group_s,
    )
