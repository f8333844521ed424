"""Builds or refreshes the passage table: idempotent and incremental.

A passage is re-embedded only when its content hash changed (or the table is rebuilt); passages
that left the corpus are deleted; a table of `ann_min_rows` passages or more gets an ANN index. The
keyword index needs no build step here: the retriever builds it from the table at its first start
after a change and keeps a snapshot keyed by the table's content (core/retrieval/snapshot.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.retrieval.documents import Passage, content_hash, embedding_text, sort_key
from core.retrieval.embedder import Embedder
from core.retrieval.gloss_vectors import GlossVectors
from core.retrieval.glosses import GlossIndex
from core.retrieval.snapshot import PassageTable
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
    sentences: bool = False,
    sentence_progress=None,
    glosses: bool = False,
) -> IndexReport:
    """Bring the table in line with `passages` (blocking; run it in a worker thread from async code).

    With `sentences`, the sentences of multi-sentence passages are embedded too, into the sentence
    table (incremental the same way; `sentence_progress(done, total)` counts those passages). With
    `glosses`, the passages' glosses are embedded when the saved gloss vectors are not those of the
    current glosses and model (gloss_vectors.py).
    Raises IndexMismatchError when the table was built with another model and `rebuild` is False.
    """
    started = time.perf_counter()
    if rebuild or not store.exists():
        store.create(embedder.model_name, embedder.dim)
    else:
        store.check_compatible(embedder.model_name, embedder.dim)
    stored = store.hashes()
    wanted = {p.id for p in passages}
    todo = [p for p in passages if stored.get(p.id) != content_hash(p)]
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
    if sentences:
        _index_sentences(
            store, embedder, passages, rebuild=rebuild, batch=batch, embed=embed, progress=sentence_progress
        )
    if glosses:
        GlossVectors.build(store, passages, embedder.model_name, embedder.dim, embed or _embed_with(embedder))
        # the gloss route's BM25 collections too, so a process's first English question reads them (bm25_files.py)
        table = PassageTable.from_passages(sorted(passages, key=lambda p: sort_key(p.id)))
        GlossIndex.load(table, saved=store.gloss_bm25_dir()).prepare()
    if todo or gone or rebuild:
        store.ensure_ann_index()  # only from `ann_min_rows` passages up; exact search below that
    return IndexReport(
        total=store.count(),
        embedded=len(todo),
        unchanged=len(passages) - len(todo),
        deleted=len(gone),
        seconds=round(time.perf_counter() - started, 2),
        rebuilt=rebuild,
    )


def _index_sentences(
    store: PassageStore, embedder: Embedder, passages: list[Passage], *, rebuild, batch, embed, progress=None
) -> None:
    from core.retrieval.sentences import split_sentences

    table = store.sentences
    if rebuild or not table.exists() or table.recorded_model() != (embedder.model_name, embedder.dim):
        table.create(embedder.model_name, embedder.dim)
    stored = table.hashes()
    split = {p.id: split_sentences(p) for p in passages}
    todo = [p for p in passages if split[p.id] and stored.get(p.id) != content_hash(p)]
    table.delete(sorted(set(stored) - {p.id for p in passages if split[p.id]}))
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        texts = [s for p in chunk for s in split[p.id]]
        vectors = embed(texts) if embed else _run(embedder.embed_passages(texts))
        table.replace(chunk, [split[p.id] for p in chunk], vectors)
        if progress:
            progress(start + len(chunk), len(todo))


def _embed_with(embedder: Embedder):
    return lambda texts: _run(embedder.embed_passages(texts))


def _run(coro):
    import asyncio

    return asyncio.run(coro)
