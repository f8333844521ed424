"""Wiring of recitation (core/recite): `/recite` on the router, answers in the engine, the deck in
memory's `/forget all`, `/memories` and `/link`, and the reminder loop beside the scheduler."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

import structlog

from core.engine.commands import CommandRouter
from core.engine.service import ChatService
from core.memory.setup import Memory
from core.ports import PassageSearch
from core.recite.commands import ReciteCommands
from core.recite.deck import Recitation, utcnow
from core.recite.reminders import ReciteReminders
from core.recite.store import ReciteStore, merge_person
from core.retrieval.documents import CorpusError, load_corpus
from core.schedule.ports import Posters
from core.schedule.store import ClaimRepo
from core.storage import Storage
from core.types import Passage

log = structlog.get_logger(__name__)


def recite_passages(corpus: Path) -> list[Passage]:
    """The passages cards are made of; none (and a log line) when the corpus cannot be read: the rest of
    Fuzi still starts, `/recite` then says the deck is empty."""
    try:
        return load_corpus(corpus)
    except CorpusError as exc:
        log.error("recite_no_corpus", error=str(exc)[:200])
        return []


def build_recitation(
    storage: Storage,
    passages: list[Passage],
    *,
    router: CommandRouter,
    service: ChatService,
    memory: Memory,
    search: PassageSearch | None,
    now: Callable[[], datetime] | None = None,
) -> Recitation:
    """The deck over the shared database, hooked into the engine, its router and memory (`now`: a
    test's clock)."""
    deck = Recitation(ReciteStore(storage.engine), passages, now=now or utcnow)
    ReciteCommands(deck, search).register(router)
    service.set_answers(deck)
    memory.commands.add_person_data(deck)
    memory.linker.add_merge_hook(merge_person)
    return deck


@asynccontextmanager
async def running_reminders(deck: Recitation | None, storage: Storage, posters: Posters) -> AsyncIterator[None]:
    """The reminder loop for as long as the block runs (with the scheduler: FUZI_SCHEDULE_ENABLED)."""
    if deck is None:
        yield
        return
    stop = asyncio.Event()
    task = asyncio.create_task(ReciteReminders(deck.store, ClaimRepo(storage.engine), posters).run(stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait({task}, timeout=35)
