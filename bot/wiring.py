"""Wiring: builds every long-lived object once from Settings and hands them to the engine.

`open_engine(settings)` / `open_runtime(settings)` is the only place that knows how the parts fit
together; the CLI (`fuzi chat`, `fuzi run …`, `fuzi web`) and nothing else calls it. The parts are
built by their own modules: `bot.llm` (the LLM ladder's port), `bot.database` (SQL), `bot.guard`,
`bot.shared_state` (what N processes share in Redis), `bot.retrieval_factory`, `bot.media`,
`bot.schedule`; `compose_service` puts the engine together from them.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from adapters.common.startup import PlatformStatus
from bot.agent import build_agent, build_tools
from bot.database import open_storage
from bot.errors import StartupError
from bot.first_start import IndexBuild, keyword_first
from bot.guard import build_guard
from bot.llm import build_llm
from bot.media import build_media
from bot.recite import build_recitation, recite_passages
from bot.retrieval_factory import build_embedder, build_retriever
from bot.schedule import build_digest, build_quizzes
from bot.settings import Settings
from bot.shared_state import lookup_limits, open_redis, open_shared_state
from core.chatsettings.admins import ChatAdmins
from core.chatsettings.command import SettingsCommand
from core.engine.admission import Admission, RunningReplies
from core.engine.commands import BuiltinCommands, CommandRouter
from core.engine.ladder import AgentRunner, FallbackLadder
from core.engine.lookup import PassageLookup
from core.engine.output_guard import GuardedLadder
from core.engine.service import ChatService
from core.guards.fact_screen import FactScreen
from core.guards.injection import InjectionDetector
from core.inbox import Inbox
from core.language.script import ScriptConverter
from core.llm.choice import ModelChoice
from core.llm.types import LLM
from core.media.intake import MediaIntake
from core.media.vision import VisionContext
from core.memory import MemoryConfig, build_memory, register_memory
from core.ports import ContextBuilder, Guard, PassageSearch
from core.quiz.commands import QuizCommands
from core.recite.deck import Recitation
from core.retrieval.retriever import HybridRetriever, RetrieverNotReady
from core.retrieval.simplified import SimplifiedQueries
from core.retrieval.store import IndexMismatchError, IndexMissingError
from core.schedule.digest import Digest
from core.schedule.ports import Posters
from core.skills import SkillRegistry
from core.storage import Storage
from core.storage.inbox import SqlInboxStore

if TYPE_CHECKING:
    from limits.aio.storage import Storage as LimitsStorage
    from redis.asyncio import Redis

    from adapters.common.metrics import FuziMetrics, TimedSearch
    from bot.schedule import QuizzesOnDemand
    from core.quiz.service import QuizService


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
    reply_deadline_s: float | None = 120.0,
    degrade_after_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    running: RunningReplies | None = None,
    scripts: ScriptConverter | None = None,
    lookup_limits: LimitsStorage | None = None,
    reply_lease_s: float = 30.0,
    media: MediaIntake | None = None,
    models: ModelChoice | None = None,
) -> ChatService:
    """The engine from its parts: the fallback ladder behind the output guard, the admission gate
    (one reply in flight per person, then limits) and the built-in commands on `router`.

    `reply_deadline_s` covers one reply, all fallback levels together (None: each level stops by its
    own limits; a retrieval-only answer quotes the ladder's `l2_k` passages, 3); a reply whose model
    sent no token `degrade_after_s` after the ladder started is answered from L2 (None: no limit).
    `running` owns the one reply in flight per person (default in process; `open_shared_state`
    gives the Redis one); a reply row not renewed for `reply_lease_s` is repaired by any live process;
    `media` reads photos and voice messages (`bot.media.build_media`); `models`: the default model
    and those a chat may pick with `/settings model` (FUZI_LLM_MODEL, FUZI_LLM_MODELS).
    """
    scripts = scripts or ScriptConverter()
    ladder = FallbackLadder(
        agent=agent,
        llm=llm,
        retriever=SimplifiedQueries(retriever, scripts) if retriever is not None else None,
        deadline_s=reply_deadline_s,
        clock=clock,
        degrade_after_s=degrade_after_s,
    )
    running = running or RunningReplies()
    settings = SettingsCommand(storage.settings, skills, ChatAdmins(admins), models)
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
        lookup=PassageLookup(retriever, scripts, limits=lookup_limits) if retriever is not None else None,
        media=media,
        models=models,
    )


@dataclass(frozen=True)
class Runtime:
    """The engine plus the parts an HTTP front door also asks (passage lookup, readiness)."""

    engine: ChatService
    storage: Storage
    retriever: HybridRetriever | TimedSearch
    llm: LLM | None
    redis: Redis | None = None  # the one Redis client (FUZI_REDIS_URL): the bots' shared parts, readiness
    scripts: ScriptConverter | None = None  # Traditional conversion, shared with scheduled posts
    digest: Digest | None = None  # the opt-in group digest (docs/schedule.md): its store and commentary
    inbox: Inbox | None = None  # every platform update kept until answered (core/inbox); the bots use it
    recite: Recitation | None = None  # /recite: decks, answers, reminders (core/recite)
    posters: Posters | None = None  # each bot adds its poster once connected: scheduled posts, quizzes
    quizzes_on_demand: QuizzesOnDemand | None = None  # group quizzes (core/quiz), built at first use

    @property
    def quizzes(self) -> QuizService | None:
        """Group quizzes (core/quiz): /quiz, poll answers, the daily quiz (built at the first ask)."""
        return self.quizzes_on_demand() if self.quizzes_on_demand is not None else None


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
        redis = open_redis(settings)
        if redis is not None:  # closed last: every part below that uses it has stopped by then
            stack.push_async_callback(redis.aclose)
        bulkhead = build_llm(settings, redis)
        llm: LLM | None = bulkhead
        if bulkhead is not None:
            stack.push_async_callback(bulkhead.aclose)  # the breaker closes the client (and its opening listener)
            if metrics is not None:  # only the front doors that serve /metrics import prometheus_client (~20 ms)
                from adapters.common.metrics import TimedLLM

                metrics.watch_breaker(lambda: bulkhead.state)
                llm = TimedLLM(bulkhead, metrics)
        sql = await open_storage(settings, status)
        stack.callback(sql.dispose)
        embedder = build_embedder(settings)
        retriever: HybridRetriever | TimedSearch = await _open_retriever(settings, llm, embedder, first_build, stack)
        if metrics is not None:
            from adapters.common.metrics import TimedSearch

            retriever = TimedSearch(retriever, metrics)
        scripts = ScriptConverter()
        tools = build_tools(settings, retriever, scripts)
        router = CommandRouter()
        limiter, running = await open_shared_state(settings, redis, stack)
        guard = build_guard(settings, sql, llm, limiter, embedder)
        media = build_media(settings, redis)
        closer = getattr(media.transcriber, "aclose", None)  # the STT endpoint's HTTP client
        if closer is not None:
            stack.push_async_callback(closer)
        memory = build_memory(
            sql,
            llm,
            embedder,
            MemoryConfig.from_settings(settings.memory),
            fact_screen=FactScreen(InjectionDetector(classifier=guard.detector.classifier)),
        )
        stack.push_async_callback(memory.aclose)
        storage = Storage(sql)
        service = compose_service(
            storage=storage,
            skills=SkillRegistry(default=settings.engine.default_skill),
            router=router,
            context=VisionContext(memory.context) if media.vision else memory.context,
            guard=guard,
            agent=build_agent(settings, llm, tools),
            llm=llm,
            retriever=retriever,
            admins=settings.admins,
            max_input_chars=settings.engine.max_input_chars,
            reply_deadline_s=settings.engine.reply_deadline_s,
            running=running,
            degrade_after_s=settings.engine.degrade_after_s,
            scripts=scripts,
            lookup_limits=lookup_limits(settings, redis),
            reply_lease_s=settings.redis.reply_lease_s,
            media=media,
            models=ModelChoice(settings.llm.model, settings.llm.model_list) if llm is not None else None,
        )
        if llm is not None:  # a model FUZI_LLM_MODELS no longer lists: its chats go back to the default
            await storage.settings.reset_models(ModelChoice(settings.llm.model, settings.llm.model_list).names)
        stack.push_async_callback(service.aclose)
        digest = build_digest(storage, llm, guard, SkillRegistry(default=settings.engine.default_skill), scripts)
        service.add_settings_listener(digest)  # digest on: say what is kept; off: delete it at once
        await service.close_interrupted(_interrupted_before(settings))
        service.watch.start()  # heartbeats for our replies, repair of dead processes' ones
        stack.push_async_callback(service.watch.aclose)
        inbox = Inbox(
            SqlInboxStore(sql),
            lease_s=settings.redis.reply_lease_s,
            max_age_s=settings.engine.inbox_max_age_s,
            exclusive=settings.db_url.startswith("sqlite"),  # one process per SQLite file (docs/deploy.md)
        )
        inbox.start()  # heartbeats for the updates we hold, hand-over of dead processes' ones
        stack.push_async_callback(inbox.aclose)
        register_memory(memory, router=router, toolset=tools)
        guard.register_commands(router)
        recite = build_recitation(
            storage,
            recite_passages(settings.corpus_path),
            router=router,
            service=service,
            memory=memory,
            search=retriever,
        )
        posters = Posters()
        quizzes = build_quizzes(settings, storage, scripts, posters)
        QuizCommands(quizzes).register(router)
        memory.commands.also_forget(quizzes.forget_accounts)  # /forget all: the person's scores too
        yield Runtime(service, storage, retriever, llm, redis, scripts, digest, inbox, recite, posters, quizzes)


async def _open_retriever(
    settings: Settings, llm: LLM | None, embedder, first_build: IndexBuild | None, stack: AsyncExitStack
) -> HybridRetriever:
    """The hybrid retriever over the built index; on a fresh machine (`first_build`) the keyword
    route until the build is done. A missing or mismatched index is a configuration error."""
    try:
        if first_build is not None:
            return await keyword_first(settings, llm, embedder, first_build, stack)
        return await build_retriever(settings, llm=llm, embedder=embedder)
    except (IndexMissingError, IndexMismatchError, RetrieverNotReady) as exc:
        raise StartupError(str(exc)) from None


def _interrupted_before(settings: Settings) -> datetime | None:
    """Replies still "streaming" that a crash cut short: with SQLite (one process) every one; with a
    shared database only those older than any live reply can be (other processes may be answering)."""
    if settings.db_url.startswith("sqlite"):
        return None
    return datetime.now(UTC) - timedelta(seconds=settings.engine.reply_deadline_s + 30)
