"""Wiring of scheduled posts: the digest (built with the engine) and the scheduler loop of `fuzi run`.

`build_digest` and `build_quizzes` run inside `open_runtime` (the /settings and /quiz commands need
them); `running_scheduler` starts the loop (and the quizzes' closing loop) beside the bots of `fuzi
run` and stops it (posts under way finish, bounded) on exit.
Every replica runs the loop: a post is claimed once in the database (core/schedule/store.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import structlog

from bot.recite import running_reminders
from bot.settings import Settings
from core.language.script import ScriptConverter
from core.llm.types import LLM
from core.ports import Guard
from core.retrieval.documents import load_corpus
from core.schedule.digest import Digest
from core.schedule.passage import Convert, DailyPassage
from core.schedule.ports import Posters
from core.schedule.scheduler import Scheduler
from core.schedule.settings_view import SettingsView
from core.schedule.store import ClaimRepo, DigestRepo, RotationRepo
from core.skills import SkillRegistry
from core.storage import Storage

if TYPE_CHECKING:
    from bot.wiring import Runtime
    from core.quiz.service import QuizService
    from core.types import Passage

log = structlog.get_logger(__name__)


def script_convert(scripts: ScriptConverter | None) -> Convert:
    """`convert(text, script)` over the engine's ScriptConverter (core/language/script.py): Traditional on request."""

    def convert(text: str, script: str) -> str:
        return scripts.traditional(text) if script == "traditional" and scripts is not None else text

    return convert


def build_digest(
    storage: Storage, llm: LLM | None, guard: Guard | None, skills: SkillRegistry, scripts: ScriptConverter | None
) -> Digest:
    """The digest: its store, the settings it reads, the persona and the model."""
    view = SettingsView(storage.settings, storage.engine)
    return Digest(DigestRepo(storage.engine), view, llm, skills, guard=guard, convert=script_convert(scripts))


def build_quizzes(
    settings: Settings, storage: Storage, scripts: ScriptConverter | None, posters: Posters
) -> QuizzesOnDemand:
    """The group quiz (core/quiz) over the passages, posting through the platforms' posters; the
    passages are read now, the service is built at its first use."""
    return QuizzesOnDemand(load_corpus(settings.corpus_path), storage, scripts, posters)


class QuizzesOnDemand:
    """The quiz service, built when first asked for (call it): `fuzi run` asks at once (the bots'
    poll answers, the scheduler), a terminal chat at its first /quiz, /leaderboard or /forget all,
    so its start imports neither core/quiz's tables nor its service (30–50 ms)."""

    def __init__(
        self, passages: list[Passage], storage: Storage, scripts: ScriptConverter | None, posters: Posters
    ) -> None:
        self._parts = (passages, storage, scripts, posters)
        self._service: QuizService | None = None

    def __call__(self) -> QuizService:
        if self._service is None:
            from core.quiz.generate import QuizMaker
            from core.quiz.service import QuizService
            from core.quiz.store import QuizRepo

            passages, storage, scripts, posters = self._parts
            self._service = QuizService(
                QuizRepo(storage.engine),
                QuizMaker(passages),
                posters,
                storage.settings,
                convert=script_convert(scripts),
            )
        return self._service

    async def forget_accounts(self, accounts: list[str]) -> int:
        """`/forget all`: the person's quiz scores (`QuizRepo.forget_accounts`)."""
        return await self().repo.forget_accounts(accounts)


def build_scheduler(settings: Settings, runtime: Runtime, posters: Posters) -> Scheduler:
    storage = runtime.storage
    skills = SkillRegistry(default=settings.engine.default_skill)
    daily = DailyPassage(
        load_corpus(settings.corpus_path),
        RotationRepo(storage.engine),
        skills,
        runtime.llm,
        convert=script_convert(runtime.scripts),
    )
    return Scheduler(
        SettingsView(storage.settings, storage.engine),
        ClaimRepo(storage.engine),
        daily,
        posters,
        digest=runtime.digest,
        quiz=runtime.quizzes,
        messages=storage.messages,
        replies=storage.replies,
        digest_at=settings.schedule.digest_time,
    )


@asynccontextmanager
async def running_scheduler(settings: Settings, runtime: Runtime, posters: Posters) -> AsyncIterator[None]:
    """The scheduler loop for as long as the block runs (FUZI_SCHEDULE_ENABLED=false: none)."""
    if not settings.schedule.enabled:
        log.info("schedule_disabled")
        yield
        return
    stop = asyncio.Event()
    tasks = {asyncio.create_task(build_scheduler(settings, runtime, posters).run(stop))}
    if runtime.quizzes is not None:  # quizzes whose time is up are closed (Discord: results shown)
        tasks.add(asyncio.create_task(runtime.quizzes.run(stop)))
    try:
        async with running_reminders(runtime.recite, runtime.storage, posters):  # /recite remind: the same claims
            yield
    finally:
        stop.set()
        await asyncio.wait(tasks, timeout=35)
