"""Builds or refreshes the passage table: idempotent and incremental.

A passage is re-embedded only when its content hash changed (or the table is rebuilt); passages
that left the corpus are deleted. The keyword index needs no build step: the retriever rebuilds it
from the table on every start.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.retrieval.documents import Passage, embedding_text
from core.retrieval.embedder import Embedder
from core.retrieval.store import PassageStore


@dataclass(frozen=True)
class IndexReport:
    """What one indexing run did."""

    total: int
    embedded: int
    unchanged: int
    deleted: int
    seconds: float
    rebuilt: bool

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def build_index(
    store: PassageStore,
    embedder: Embedder,
    passages: list[Passage],
    *,
    rebuild: bool = False,
    batch: int = 64,
    progress=None,
) -> IndexReport:
    """Bring the table in line with `passages` (blocking; run it in a worker thread from async code).

    Raises IndexMismatchError when the table was built with another model and `rebuild` is False.
    """
    started = time.perf_counter()
    if rebuild or not store.exists():
        store.create(embedder.model_name, embedder.dim)
    else:
        store.check_compatible(embedder.model_name, embedder.dim)
    stored = store.hashes()
    wanted = {p.id for p in passages}
    todo = [p for p in passages if stored.get(p.id) != p.content_hash]
    gone = sorted(set(stored) - wanted)
    store.delete(gone)
    embed = getattr(embedder, "embed_passages_sync", None)
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        texts = [embedding_text(p) for p in chunk]
        vectors = embed(texts) if embed else _run(embedder.embed_passages(texts))
        store.upsert(chunk, vectors)
        if progress:
            progress(start + len(chunk), len(todo))
    return IndexReport(
        total=store.count(),
        embedded=len(todo),
        unchanged=len(passages) - len(todo),
        deleted=len(gone),
        seconds=round(time.perf_counter() - started, 2),
        rebuilt=rebuild,
    )


def _run(coro):
    import asyncio

    return asyncio.run(coro)
