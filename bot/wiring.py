"""Wiring: builds every long-lived object once from Settings and hands them to the engine.

`open_engine(settings)` is the only place that knows how the parts fit together; the CLI
(`fuzi chat`, `fuzi run …`) and nothing else calls it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, cast
from urllib.parse import unquote, urlsplit

import structlog
from sqlalchemy.exc import OperationalError

from adapters.common.budget import BudgetRegistry
from adapters.common.metrics import FuziMetrics, TimedLLM, TimedSearch
from adapters.common.pace import RedisPace
from adapters.common.startup import PlatformStatus
from adapters.telegram.settings import MAX_REQUESTS_PER_S
from bot.errors import StartupError
from bot.first_start import IndexBuild, keyword_first
from bot.logging import configure_logging
from bot.media import build_media
from bot.retrieval_factory import build_embedder, build_retriever
from bot.schedule import build_digest
from bot.settings import Settings
from core.admission import Admission, RunningReplies
from core.agent import Agent
from core.chatsettings.admins import ChatAdmins
from core.chatsettings.command import SettingsCommand
from core.commands import BuiltinCommands, CommandRouter
from core.engine.service import ChatService
from core.fallback import AgentRunner, FallbackLadder
from core.guarded import GuardedLadder
from core.guards import (
    FuziGuard,
    InjectionDetector,
    InMemoryRateLimiter,
    OutputChecker,
    Quota,
    SecretRedactor,
    UsageStore,
)
from core.guards.fact_screen import FactScreen
from core.guards.limits import RateLimiter
from core.guards.second_opinion import SecondOpinion
from core.llm.breaker import CircuitBreakerLLM
from core.llm.bulkhead import BulkheadLLM
from core.llm.errors import LLMNotConfigured
from core.llm.types import LLM
from core.lookup import PassageLookup
from core.media.intake import MediaIntake
from core.media.vision import VisionContext
from core.memory import MemoryConfig, build_memory, register_memory
from core.ports import ContextBuilder, Guard, PassageSearch
from core.replies_redis import RedisRunningReplies
from core.retrieval.retriever import HybridRetriever, RetrieverNotReady
from core.retrieval.store import IndexMismatchError, IndexMissingError
from core.retrieval.tools import classics_tools
from core.schedule.digest import Digest
from core.script import ScriptConverter, SimplifiedQueries
from core.seen import InMemorySeen, RedisSeen, Seen
from core.skills import SkillRegistry
from core.storage import PoolConfig, Storage, open_database
from core.tools import ToolClient, build_web_search_server

if TYPE_CHECKING:
    from core.llm.client import OpenAIChatClient

log = structlog.get_logger(__name__)


def secret_redactor(settings: Settings) -> SecretRedactor:
    """A log processor that knows every configured secret (plus the generic token patterns)."""
    secrets = [
        settings.llm.api_key,
        settings.telegram.bot_token,
        settings.discord.bot_token,
        settings.web_search.tavily_api_key,
        settings.web.jwt_secret,
        settings.telegram.webhook_secret,
    ]
    passwords = [url_password(url) for url in (settings.database_url, settings.redis.url)]
    return SecretRedactor([*(s.get_secret_value() for s in secrets if s is not None), *passwords])


def url_password(url: str | None) -> str | None:
    """The password in a database or Redis URL (percent-decoded), or None."""
    try:
        password = urlsplit(url).password if url else None
    except ValueError:  # not a URL: nothing to find
        return None
    return unquote(password) if password else None


def setup_logging(settings: Settings, *, log_file: Path | None = None) -> None:
    """structlog with secret redaction; to `log_file` (the terminal chat keeps its screen clean) or stderr."""
    stream = None
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        stream = open(log_file, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - lives as long as the process
    configure_logging(settings.env, settings.log_level, extra_processors=[secret_redactor(settings)], stream=stream)


def build_llm(settings: Settings) -> tuple[BulkheadLLM | None, OpenAIChatClient | None]:
    """The client behind a breaker behind a bulkhead, or (None, None) when no API key is configured (L2 mode).

    The openai SDK (about half a second of imports) is loaded only when a key is configured.
    """
    s = settings.llm
    if s.api_key is None or not s.api_key.get_secret_value():
        log.warning("llm_not_configured", hint="set FUZI_LLM_API_KEY; answering from the texts alone (L2)")
        return None, None
    from core.llm.client import STREAM_IDLE_TIMEOUT_S, OpenAIChatClient

    try:
        client = OpenAIChatClient(
            base_url=s.base_url,
            api_key=s.api_key.get_secret_value() if s.api_key else None,
            model=s.model,
            timeout_s=s.timeout_s,
            first_token_timeout_s=s.first_token_timeout_s,
            stream_idle_timeout_s=STREAM_IDLE_TIMEOUT_S,
            retry=s.retry_policy(),
        )
    except LLMNotConfigured:
        log.warning("llm_not_configured", hint="set FUZI_LLM_API_KEY; answering from the texts alone (L2)")
        return None, None
    if settings.redis.url:  # N processes: one shared breaker state, one half-open probe across all
        from core.llm.breaker_redis import SharedCircuitBreakerLLM

        breaker: LLM = SharedCircuitBreakerLLM(client, settings.redis.url, prefix=settings.redis.prefix)
    else:
        breaker = CircuitBreakerLLM(client)
    bulkhead = BulkheadLLM(breaker, max_concurrent=s.bulkhead_floor, max_healthy=s.max_concurrent_healthy)
    return bulkhead, client


def database_engine(settings: Settings, *, migrate: bool | None = None):
    """The SQL engine of FUZI_DATABASE_URL with its pool; the schema upgraded unless told not to."""
    d = settings.database
    pool = PoolConfig(size=d.pool_size, timeout_s=d.pool_timeout_s)
    return open_database(settings.db_url, pool=pool, migrate=d.migrate_on_start if migrate is None else migrate)


STORAGE_RETRY_MAX_S = 30.0
"""The longest wait between two attempts to reach a database server that is down at start."""


async def open_storage(settings: Settings, status: PlatformStatus | None = None, sleep=asyncio.sleep):
    """`database_engine` for a process that starts: a database server that cannot be reached is one
    log line per attempt (no traceback), retried with backoff (1 s doubling to 30 s) until it answers;
    ``status`` says "storage": "unreachable" meanwhile (/readyz 503). A SQLite file that cannot be
    opened is a configuration error: one line, and the process stops."""
    wait, attempt = 1.0, 0
    while True:
        attempt += 1
        try:
            sql = await asyncio.to_thread(database_engine, settings)
        except OperationalError as exc:
            detail = (str(exc.orig or exc).strip().splitlines() or [""])[0][:200]
            if settings.db_url.startswith("sqlite"):
                raise StartupError(f"cannot open the database FUZI_DATABASE_URL: {detail}") from None
            if status is not None:
                status.set("storage", "unreachable")
            log.warning(
                "storage_unreachable",
                attempt=attempt,
                error=type(exc.orig or exc).__name__,
                detail=detail,
                retry_in_s=wait,
            )
            await sleep(wait)
            wait = min(wait * 2, STORAGE_RETRY_MAX_S)
            continue
        if status is not None:
            status.set("storage", "ok")
        if attempt > 1:
            log.info("storage_reached", attempts=attempt)
        return sql


def _quota(settings: Settings) -> Quota:
    g = settings.guards
    return Quota(per_minute=g.per_minute, per_day=g.per_day, group_per_minute=g.per_group_per_minute)


def build_shared_state(settings: Settings) -> tuple[RateLimiter, RunningReplies]:
    """Per-person limits and the one-reply-in-flight owner: in memory, or in Redis when FUZI_REDIS_URL is set."""
    r, quota = settings.redis, _quota(settings)
    if not r.url:
        return InMemoryRateLimiter(quota), RunningReplies()
    from core.guards.limits_redis import RedisRateLimiter

    return (
        RedisRateLimiter(quota, r.url, prefix=r.prefix),
        RedisRunningReplies(r.url, prefix=r.prefix, lease_s=r.reply_lease_s),
    )


def build_seen(settings: Settings) -> Seen:
    """Which platform update ids were handled: in process, or shared in Redis when FUZI_REDIS_URL is set."""
    if settings.redis.url:
        return RedisSeen(settings.redis.url, prefix=settings.redis.prefix)
    return InMemorySeen()


def build_pace(settings: Settings) -> RedisPace | None:
    """Telegram's bot-wide send schedule shared by N processes (None: each process paces itself)."""
    if not settings.redis.url:
        return None
    return RedisPace(settings.redis.url, f"{settings.redis.prefix}pace:telegram", MAX_REQUESTS_PER_S)


def build_budgets(settings: Settings, platform: str) -> BudgetRegistry:
    """Per-chat outbound budgets of ``platform``: in process, or shared in Redis when FUZI_REDIS_URL is set."""
    if not settings.redis.url:
        return BudgetRegistry()
    from adapters.common.budget_redis import RedisChatGate

    return BudgetRegistry(gate=RedisChatGate(settings.redis.url, f"{settings.redis.prefix}budget:{platform}:"))


def build_guard(settings: Settings, engine, llm: LLM | None = None, limiter: RateLimiter | None = None) -> FuziGuard:
    g = settings.guards
    second = None
    if llm is not None and g.second_opinion and g.injection_classifier:
        second = SecondOpinion(llm)
    usage = UsageStore(engine, tz=g.zone)
    return FuziGuard(
        limiter or InMemoryRateLimiter(_quota(settings)),
        detector=InjectionDetector(classifier="bundled" if g.injection_classifier else None),
        output=OutputChecker(),
        usage=usage,
        daily_token_budget=g.daily_token_budget,
        second_opinion=second,
    )


def compose_service(
    *,
    storage: Storage,
    skills: SkillRegistry,
    router: CommandRouter,
    context: ContextBuilder,
    guard: Guard,
    agent: AgentRunner | None = None,
    llm: LLM | None = None,
    retriever: PassageSearch | None = None,
    admins: frozenset[str] = frozenset(),
    max_input_chars: int = 4000,
    l2_passages: int = 3,
    reply_deadline_s: float | None = 120.0,
    degrade_after_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    running: RunningReplies | None = None,
    scripts: ScriptConverter | None = None,
    lookup_limits: str = "memory://",
    reply_lease_s: float = 30.0,
    media: MediaIntake | None = None,
) -> ChatService:
    """The engine from its parts: the fallback ladder behind the output guard, the admission gate
    (one reply in flight per person, then limits) and the built-in commands on `router`.

    `reply_deadline_s` covers one reply, all fallback levels together (None: each level stops by its
    own limits); `l2_passages` is how many passages a retrieval-only answer quotes; a reply whose
    model sent no token `degrade_after_s` after the ladder started is answered from L2 (None: no limit).
    `running` owns the one reply in flight per person (default in process; `build_shared_state`
    gives the Redis one); a reply row not renewed for `reply_lease_s` is repaired by any live process.
    gives the Redis one); `media` reads photos and voice messages (`bot.media.build_media`).
    """
    scripts = scripts or ScriptConverter()
    ladder = FallbackLadder(
        agent=agent,
        llm=llm,
        retriever=SimplifiedQueries(retriever, scripts) if retriever is not None else None,
        l2_k=l2_passages,
        deadline_s=reply_deadline_s,
        clock=clock,
        degrade_after_s=degrade_after_s,
    )
    running = running or RunningReplies()
    settings = SettingsCommand(storage.settings, skills, ChatAdmins(admins))
    BuiltinCommands(router, skills, storage.chats, running, settings).register()
    settings.register(router)
    return ChatService(
        storage=storage,
        skills=skills,
        router=router,
        context=context,
        guard=guard,
        replies=GuardedLadder(ladder, guard),
        admission=Admission(running, guard),
        admins=admins,
        max_input_chars=max_input_chars,
        reply_lease_s=reply_lease_s,
        clock=clock,
        settings=settings,
        scripts=scripts,
        lookup=PassageLookup(retriever, scripts, limits_storage=lookup_limits) if retriever is not None else None,
        media=media,
    )


@dataclass(frozen=True)
class Runtime:
    """The engine plus the parts an HTTP front door also asks (passage lookup, readiness)."""

    engine: ChatService
    storage: Storage
    retriever: HybridRetriever | TimedSearch
    llm: LLM | None
    redis_ping: Callable[[], Awaitable[object]] | None = None  # FUZI_REDIS_URL set: readiness asks it too
    scripts: ScriptConverter | None = None  # Traditional conversion, shared with scheduled posts
    digest: Digest | None = None  # the opt-in group digest (docs/schedule.md): its store and commentary


@asynccontextmanager
async def open_engine(settings: Settings, first_build: IndexBuild | None = None) -> AsyncIterator[ChatService]:
    """Build the engine and everything it needs; close it all on exit."""
    async with open_runtime(settings, first_build=first_build) as runtime:
        yield runtime.engine


@asynccontextmanager
async def open_runtime(
    settings: Settings,
    metrics: FuziMetrics | None = None,
    *,
    first_build: IndexBuild | None = None,
    status: PlatformStatus | None = None,
) -> AsyncIterator[Runtime]:
    """Build the engine and its parts; with `metrics`, LLM and retrieval latency are recorded.

    With `first_build` (a fresh machine: `prepare_data` started the index build), the retriever
    serves the keyword route until the build is done, then switches to hybrid search; on exit the
    build is awaited, so the next start finds a complete index.
    """
    settings.home.mkdir(parents=True, exist_ok=True)
    async with AsyncExitStack() as stack:
        bulkhead, _ = build_llm(settings)
        llm: LLM | None = bulkhead
        if bulkhead is not None:
            stack.push_async_callback(bulkhead.aclose)  # the breaker closes the client (and its Redis connection)
            if metrics is not None:
                metrics.watch_breaker(lambda: bulkhead.state)
                llm = TimedLLM(bulkhead, metrics)
        sql = await open_storage(settings, status)
        stack.callback(sql.dispose)
        embedder = build_embedder(settings)
        retriever: HybridRetriever | TimedSearch
        if first_build is not None:
            retriever = await keyword_first(settings, llm, embedder, first_build, stack)
        else:
            try:
                retriever = await build_retriever(settings, llm=llm, embedder=embedder)
            except (IndexMissingError, IndexMismatchError, RetrieverNotReady) as exc:
                raise StartupError(str(exc)) from None
        if metrics is not None:
            retriever = TimedSearch(retriever, metrics)
        scripts = ScriptConverter()
        tools = ToolClient([classics_tools(cast(HybridRetriever, SimplifiedQueries(retriever, scripts)))])
        web = build_web_search_server(settings.web_search)
        if web is not None:
            tools.add_server(web)
        router = CommandRouter()
        limiter, running = build_shared_state(settings)
        if isinstance(running, RedisRunningReplies):  # it listens for /cancel from other processes
            await running.start()
            stack.push_async_callback(running.aclose)
        if hasattr(limiter, "aclose"):
            stack.push_async_callback(limiter.aclose)
        guard = build_guard(settings, sql, llm, limiter)
        media = build_media(settings)
        for part in (media.transcriber, media.limiter):  # the STT client, the Redis media quota
            closer = getattr(part, "aclose", None)
            if closer is not None:
                stack.push_async_callback(closer)
        memory = build_memory(
            sql, llm, embedder, MemoryConfig.from_settings(settings.memory), fact_screen=FactScreen(guard.detector)
        )
        stack.push_async_callback(memory.aclose)
        a = settings.agent
        agent = Agent(llm, tools, max_rounds=a.max_rounds) if llm else None
        storage = Storage(sql)
        service = compose_service(
            storage=storage,
            skills=SkillRegistry(default=settings.engine.default_skill),
            router=router,
            context=VisionContext(memory.context) if media.vision else memory.context,
            guard=guard,
            agent=agent,
            llm=llm,
            retriever=retriever,
            admins=settings.admins,
            max_input_chars=settings.engine.max_input_chars,
            reply_deadline_s=settings.engine.reply_deadline_s,
            running=running,
            degrade_after_s=settings.engine.degrade_after_s,
            scripts=scripts,
            lookup_limits=settings.redis.url or "memory://",
            reply_lease_s=settings.redis.reply_lease_s,
            media=media,
        )
        stack.push_async_callback(service.aclose)
        digest = build_digest(storage, llm, guard, SkillRegistry(default=settings.engine.default_skill), scripts)
        service.add_settings_listener(digest)  # digest on: say what is kept; off: delete it at once
        await service.close_interrupted(_interrupted_before(settings))
        service.watch.start()  # heartbeats for our replies, repair of dead processes' ones
        stack.push_async_callback(service.watch.aclose)
        register_memory(memory, router=router, tool_client=tools)
        guard.register_commands(router)
        await tools.connect()
        redis_ping = None
        if settings.redis.url:
            from redis.asyncio import Redis

            ops_redis = Redis.from_url(settings.redis.url, socket_timeout=1.0, socket_connect_timeout=1.0)
            stack.push_async_callback(ops_redis.aclose)
            redis_ping = ops_redis.ping
        yield Runtime(service, storage, retriever, llm, redis_ping, scripts, digest)


def _interrupted_before(settings: Settings) -> datetime | None:
    """Replies still "streaming" that a crash cut short: with SQLite (one process) every one; with a
    shared database only those older than any live reply can be (other processes may be answering)."""
    if settings.db_url.startswith("sqlite"):
        return None
    return datetime.now(UTC) - timedelta(seconds=settings.engine.reply_deadline_s + 30)
