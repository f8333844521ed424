"""The vector route: the query's embedding against the passage, sentence and gloss vectors.

A passage scores the best of its own cosine with the query and its sentences' (`sentence_vectors =
"max"`), and, for a query the gloss route serves (English, a modern-Chinese question or translation:
`GlossIndex.wants`), its glosses' too (gloss_vectors.py). With `sentence_vectors = "route"` the
sentences are a route of their own (`sentence`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import numpy as np

from core.retrieval.documents import sort_key
from core.retrieval.embedder import Embedder, QueryWithoutFeatures, has_features, query_head
from core.retrieval.fusion import query_language
from core.retrieval.glosses import GlossIndex
from core.retrieval.modern import vector_text
from core.retrieval.results import RetrieverConfig
from core.retrieval.store import PassageStore
from core.retrieval.timing import maybe_thread, ms

Hits = list[tuple[str, float]]


class VectorRoutes:
    """The vector and sentence routes of one retriever; `ready` once the passage vectors are loaded."""

    def __init__(self, store: PassageStore, embedder: Embedder, config: RetrieverConfig):
        self._store = store
        self._embedder = embedder
        self.config = config
        self.ready = False  # False until the retriever's `start()`: keyword-only
        self.sentences = False

    async def vector(
        self, query: str, pool: int, corpus: str, timings: dict, vectors: dict, *, glosses: GlossIndex | None = None
    ) -> Hits:
        """The passages nearest the query's head (a long query: its first `query_tokens` tokens);
        `glosses` (a query the gloss route serves): their vectors count too."""
        if not self.ready:
            return []

        async def search(vector: np.ndarray) -> Hits:
            store = self._store
            hits = await maybe_thread(store.in_memory, store.vector_search, vector, pool, corpus)
            more: list[Hits] = []
            if self.config.sentence_vectors == "max" and self.sentences:
                sentences = store.sentences
                more.append(await maybe_thread(sentences.in_memory, sentences.search, vector, pool * 3, corpus))
            if glosses is not None and glosses.vectors is not None:
                asks = query_language(query) == "zh"  # an English question's nearest Chinese ask is no evidence
                more.append(glosses.vectors.search(vector, pool * 3, corpus, asks=asks))
            if not more:
                return hits
            best = dict(hits)
            for pid, score in (hit for extra in more for hit in extra):
                best[pid] = max(best.get(pid, -1.0), score)
            return list(best.items())

        return await self._nearest(query, pool, vectors, search, text=self._head, timings=timings)

    async def sentence(self, query: str, pool: int, corpus: str, timings: dict, vectors: dict) -> Hits:
        """The sentence vectors as a route of their own (`sentence_vectors = "route"`)."""
        sentences = self._store.sentences

        def search(vector: np.ndarray) -> Awaitable[Hits]:
            return maybe_thread(sentences.in_memory, sentences.search, vector, pool * 3, corpus)

        return await self._nearest(query, pool, vectors, search)

    async def _nearest(
        self,
        query: str,
        pool: int,
        vectors: dict[str, asyncio.Future],
        search: Callable[[np.ndarray], Awaitable[Hits]],
        *,
        text: Callable[[str], str] | None = None,
        timings: dict | None = None,
    ) -> Hits:
        """`search`'s hits for this search's embedding of `text(query)` (`query` itself without
        `text`), best first, at most `pool`; none for a query without features (emoji, punctuation:
        no vote, no fault). `timings`: the embedding's and the search's milliseconds."""
        started = time.perf_counter()
        if not has_features(query):
            return []
        try:
            vector = await asyncio.shield(self._query_vector(text(query) if text else query, vectors))
        except QueryWithoutFeatures:  # a backend found no feature
            return []
        if timings is not None:
            timings["embed"] = ms(started)
        started = time.perf_counter()
        hits = await search(vector)
        if timings is not None:
            timings["vector"] = ms(started)
        hits.sort(key=lambda h: (-round(h[1], 6), sort_key(h[0])))
        return hits[:pool]

    def _head(self, query: str) -> str:
        """What the vector route embeds: the query's head with its glossary or classical terms."""
        head = query_head(self._embedder, query, self.config.query_tokens)
        return vector_text(head, english=self.config.english_expansion, modern=self.config.question_filter)

    def _query_vector(self, query: str, vectors: dict[str, asyncio.Future]) -> asyncio.Future:
        """This search's embedding of `query`, shared by its routes."""
        future = vectors.get(query)
        if future is None:
            future = vectors[query] = asyncio.ensure_future(self._embedder.embed_query(query))
        return future
