"""A ChatService with memory and /recite wired as bot/wiring.py does, and a clock the test moves."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlmodel import Session, select

from bot.recite import build_recitation
from core.engine.commands import CommandRouter
from core.engine.service import ChatService
from core.memory import Memory, MemoryConfig, build_memory, register_memory
from core.recite.deck import Recitation
from core.recite.models import ReciteOpen
from core.retrieval.documents import load_corpus
from core.storage import Storage
from tests.helpers_corpus import corpus_dir
from tests.helpers_engine import CorpusRetriever, make_service
from tests.test_memory_fixtures import HashEmbedder


class Clock:
    """An aware UTC clock that moves only when told."""

    def __init__(self, start: datetime = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)) -> None:
        self.at = start

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)


@dataclass
class ReciteEngine:
    service: ChatService
    deck: Recitation
    memory: Memory
    clock: Clock
    storage: Storage

    def open_card(self, chat_key: str) -> ReciteOpen:
        """The open card of `chat_key` as stored (what the person should answer)."""
        with Session(self.storage.engine) as s:
            row = s.exec(select(ReciteOpen).where(ReciteOpen.chat_key == chat_key)).first()
        assert row is not None, f"no open card in {chat_key}"
        return row


def recite_engine(storage: Storage, clock: Clock | None = None, **service_kwargs) -> ReciteEngine:
    clock = clock or Clock()
    memory = build_memory(storage.engine, None, HashEmbedder(), MemoryConfig())
    router = CommandRouter()
    service = make_service(storage, router=router, **service_kwargs)
    register_memory(memory, router=router)
    deck = build_recitation(
        storage,
        load_corpus(corpus_dir()),
        router=router,
        service=service,
        memory=memory,
        search=CorpusRetriever(corpus_dir()),  # type: ignore[arg-type]
        now=clock,
    )
    return ReciteEngine(service, deck, memory, clock, storage)
