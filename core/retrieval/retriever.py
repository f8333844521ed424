"""Hybrid retrieval: vector route (LanceDB) + keyword route (BM25) [+ gloss route, glosses.py] → score
fusion (a flat route votes less) → verbatim and quote rules → optional rerank, inside one time budget,
degrading to one route when the other fails."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from core.books import book_order, books_in
from core.books.named import unheld_books
from core.retrieval.documents import Passage, group_of, sort_key
from core.retrieval.embedder import Embedder
from core.retrieval.fusion import Fused, flat_weights, promote, query_language, quote_key, rrf, score_fusion, squash
from core.retrieval.gloss_vectors import GlossVectors
from core.retrieval.glossary import expand_english
from core.retrieval.glosses import GlossIndex
from core.retrieval.keyword import KeywordIndex, VerbatimIndex, strip_question_words
from core.retrieval.modern import expand_modern
from core.retrieval.named_books import searched
from core.retrieval.ordering import book_first, lines_first, linked_sources, rule_indexes, survey_first
from core.retrieval.quotes import LineIndex
from core.retrieval.rerank import Reranker, RerankError
from core.retrieval.results import (
    RetrievalError,
    RetrieverConfig,
    RetrieverNotReady,
    SearchResponse,
    SearchResult,
)
from core.retrieval.snapshot import PassageTable, Snapshot, load_or_build
from core.retrieval.store import IndexMissingError, PassageStore
from core.retrieval.themes import ThemeIndex, TopicQuery, book_hint
from core.retrieval.timing import Clock, maybe_thread, ms
from core.retrieval.translate import QueryTranslator, wants_translation
from core.retrieval.vector_route import VectorRoutes

log = structlog.get_logger(__name__)

MODES = ("hybrid", "vector", "keyword")
MAX_K = 50
INLINE_MAX_PASSAGES = 20_000  # below this, in-memory scans run on the event loop (well under 1 ms)


class HybridRetriever:
    """Searches the passages of a `PassageStore` by vector and keyword routes, fused.

    Call `await start()` once before searching: it checks the table's model and dimension against
    the embedder and rebuilds the keyword index from the table.

    Args:
        store: the LanceDB passage table.
        embedder: must be the model the table was built with.
        reranker: None for no reranking.
        config: fusion, oversampling and budget settings.
        translator: English and modern-Chinese questions are also searched in the classical
            wording it gives (a fused route, `translated`); None: no such route.
    """

    def __init__(
        self,
        store: PassageStore,
        embedder: Embedder,
        *,
        reranker: Reranker | None = None,
        config: RetrieverConfig | None = None,
        translator: QueryTranslator | None = None,
    ):
        self._store = store
        self._embedder = embedder
        self._reranker = reranker
        self._translator = translator
        self.config = config or RetrieverConfig()
        self._passages: PassageTable = PassageTable.from_passages([])
        self._keyword: KeywordIndex | None = None
        self._verbatim: VerbatimIndex | None = None
        self._lines: LineIndex | None = None
        self._themes: ThemeIndex | None = None
        self._glosses: GlossIndex | None = None  # the `gloss` route (glosses.py), built with the rules
        self._rules_task: asyncio.Task | None = None
        self._routes = VectorRoutes(store, embedder, self.config)  # ready after `start()`: keyword-only before

    # ------------------------------------------------------------------ readiness
    async def start(self) -> None:
        """Check the index, load the snapshot for the table's content (or build and save it from
        the table); raise loudly when not servable."""
        await asyncio.to_thread(self._load)
        await self._build_rules()

    async def start_keyword_only(self, passages: list[Passage]) -> None:
        """Serve the keyword route over `passages` while the vector table is still being built (the
        first build takes a minute or two on 2 cores); `start()` later switches to hybrid search."""
        ordered = sorted(passages, key=lambda p: sort_key(p.id))
        snapshot = await asyncio.to_thread(Snapshot.build, ordered, tokenizer=self.config.tokenizer)
        self._passages, self._keyword, self._verbatim = snapshot.passages, snapshot.keyword, snapshot.verbatim
        await self._build_rules()
        log.warning("retriever_keyword_only", passages=len(ordered), hint="the vector index is being built")

    async def _build_rules(self) -> None:
        """Build the quote-line, theme and gloss indexes: at once for the books (~0.1 s), in the
        background above INLINE_MAX_PASSAGES (the search serves meanwhile)."""

        # the gloss vectors are read from the glosses the route reads, when a query first runs it
        vectors = functools.partial(
            GlossVectors.load, self._store, model_name=self._embedder.model_name, dim=self._embedder.dim
        )

        async def build(passages: PassageTable) -> None:
            self._lines, self._themes = await asyncio.to_thread(rule_indexes, passages)
            self._glosses = await asyncio.to_thread(
                GlossIndex.load,
                passages,
                tokenizer=self.config.tokenizer,
                vectors=vectors,
                saved=self._store.gloss_bm25_dir() if self.config.snapshot else None,
            )

        if len(self._passages) <= INLINE_MAX_PASSAGES:
            await build(self._passages)
        else:
            self._rules_task = asyncio.create_task(build(self._passages))

    @property
    def vectors_ready(self) -> bool:
        """True once `start()` loaded the vector table (False while serving keyword-only)."""
        return self._routes.ready

    def _load(self) -> None:
        saved = self.config.snapshot and self._store.load_state()  # unchanged tables: no LanceDB (table_state.py)
        self._store.check_compatible(self._embedder.model_name, self._embedder.dim)
        stored = self._store.count()
        if stored == 0:
            raise IndexMissingError("no passages are indexed yet; run `fuzi index`")
        snapshot, source = load_or_build(self._store, tokenizer=self.config.tokenizer, use_saved=self.config.snapshot)
        if len(snapshot.keyword) != stored:
            raise RetrieverNotReady(
                f"keyword index holds {len(snapshot.keyword)} passages but the table holds {stored}; refusing to start"
            )
        self._store.load_flat()  # exact in-memory scan below the ANN threshold
        self._routes.sentences = self.config.sentence_vectors != "off" and self._sentences_usable()
        self._passages = snapshot.passages
        self._keyword = snapshot.keyword
        self._verbatim = snapshot.verbatim
        self._routes.ready = True
        if self.config.snapshot and not saved:
            self._store.save_state()  # the next start reads this instead of LanceDB
        log.info("retriever_ready", passages=stored, model=self._embedder.model_name, source=source)

    def _sentences_usable(self) -> bool:
        """Sentence vectors exist and match the passages' current content; otherwise warn, skip them."""
        sentences = self._store.sentences
        if not sentences.exists():
            log.warning("sentence_vectors_missing", hint="run `fuzi index` with FUZI_RETRIEVAL_SENTENCE_VECTORS set")
            return False
        if sentences.recorded_model() != (self._embedder.model_name, self._embedder.dim):
            log.warning("sentence_vectors_other_model", hint="run `fuzi index`")
            return False
        current = self._store.hashes()
        stale = [pid for pid, digest in sentences.hashes().items() if current.get(pid) != digest]
        if stale:
            log.warning("sentence_vectors_stale", passages=len(stale), hint="run `fuzi index`")
            return False
        return sentences.load_flat()

    @property
    def ready(self) -> bool:
        return self._keyword is not None and len(self._keyword) > 0

    @property
    def _keyword_index(self) -> KeywordIndex:
        if self._keyword is None:
            raise RetrieverNotReady("retriever not started (call start())")
        return self._keyword

    @property
    def _verbatim_index(self) -> VerbatimIndex:
        if self._verbatim is None:
            raise RetrieverNotReady("retriever not started (call start())")
        return self._verbatim

    @property
    def size(self) -> int:
        return len(self._passages)

    # ------------------------------------------------------------------ lookups
    async def get(self, passage_id: str) -> Passage | None:
        """The passage with this id, or None."""
        return self._passages.get(passage_id)

    async def neighbours(self, passage_id: str, n: int = 1) -> list[Passage]:
        """Up to `n` passages before and after, within the same chapter (论语 篇, 孟子 篇, 诗经 section)."""
        passage = self._passages.get(passage_id)
        if passage is None:
            return []
        order = self._passages.order
        i = self._passages.position(passage_id)
        window = order[max(0, i - n) : i] + order[i + 1 : i + 1 + n]
        group = group_of(passage)
        return [self._passages[j] for j in window if group_of(self._passages[j]) == group]

    async def find_quote(self, text: str, *, k: int = 5, corpus: str = "all") -> tuple[list[SearchResult], bool]:
        """Passages containing `text` verbatim (punctuation ignored), else the keyword route's best.

        Returns (results, exact): exact is True when the results contain the text word for word.
        """
        if not self.ready:
            raise RetrieverNotReady("retriever not started (call start())")
        key = squash(text)
        ids = self._verbatim_index.containing(key, corpus, limit=k) if len(key) >= 2 else []
        aligned = self._verbatim_index.aligned(key, ids)
        ids.sort(key=lambda i: i not in aligned)  # whole-clause matches first, then corpus order
        if ids:
            return [self._result(Fused(i, 0.0, {"verbatim": n}, True), None) for n, i in enumerate(ids, 1)], True
        response = await self.search(text, k=k, corpus=corpus, mode="keyword")
        return response.results, False

    # ------------------------------------------------------------------ search
    async def search(self, query: str, *, k: int = 5, corpus: str = "all", mode: str = "hybrid") -> SearchResponse:
        """The best `k` passages for `query`; raises RetrievalError when every route fails."""
        if not self.ready:
            raise RetrieverNotReady("retriever not started (call start())")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        books_in(corpus)  # ValueError for an unknown selection
        k = max(1, min(int(k), MAX_K))
        clock = Clock(self.config.budget_s)
        timings: dict[str, float] = {}
        if not query.strip():
            return SearchResponse([], timings_ms=timings)
        pool = max(k, k * self.config.oversample)
        topic = self._themes.recognise(query) if mode == "hybrid" and self.config.topics and self._themes else None
        # the routes search the question's words; the books it names are its scope (book_first below)
        routed = searched(query) if mode == "hybrid" and self.config.book_hint else query
        rankings, failed = await self._run_routes(routed, pool, corpus, mode, clock, timings, topic)
        if topic is not None and not topic.survey:
            rankings["topic"] = ThemeIndex.ranking(topic, corpus)[:pool]
        fused = self._fuse(query, rankings, corpus, mode, timings, topic)
        fused, rerank_scores = await self._maybe_rerank(query, fused, k, mode, clock, timings)
        timings["total"] = clock.elapsed_ms()
        results = [self._result(f, rerank_scores) for f in fused[:k]]
        return SearchResponse(
            results,
            degraded=bool(failed),
            reranked=rerank_scores is not None,
            failed_routes=tuple(failed),
            timings_ms=timings,
            topic="、".join(t.name for t in topic.themes) if topic and (topic.survey or topic.indexed) else None,
            unheld=tuple(unheld := unheld_books(query, self._passages.books)),
            held=tuple(sorted(self._passages.books, key=book_order)) if unheld else (),
        )

    async def _run_routes(self, query, pool, corpus, mode, clock, timings, topic=None):
        names = ["vector", "keyword"] if mode == "hybrid" else [mode]
        if mode == "hybrid" and self.config.sentence_vectors == "route" and self._routes.sentences:
            names.append("sentence")
        if mode == "hybrid" and self.config.weights.get("keyword", 1.0) == 0:
            names = ["vector"]
        if mode == "hybrid" and self._translator is not None and wants_translation(query):
            names.append("translated")
        glosses = self._glosses if mode == "hybrid" and (topic is None or topic.qualified) else None
        if glosses is not None and not glosses.wants(query):
            glosses = None  # the gloss route, and the gloss vectors, serve only the queries it wants
        runners: dict[str, Callable[..., Coroutine[Any, Any, list[tuple[str, float]]]]] = {
            "keyword": self._keyword_route
        }
        runners["vector"] = functools.partial(self._routes.vector, glosses=glosses)
        runners["sentence"], runners["translated"] = self._routes.sentence, self._translated_route
        if glosses is not None:
            names, runners["gloss"] = [*names, "gloss"], glosses.route
        vectors: dict[str, asyncio.Future] = {}  # this search's embedding, shared by the vector and sentence routes
        tasks = {n: asyncio.create_task(runners[n](query, pool, corpus, timings, vectors)) for n in names}
        done, pending = await asyncio.wait(tasks.values(), timeout=clock.remaining())
        for task in pending:
            task.cancel()
        rankings: dict[str, list[tuple[str, float]]] = {}
        failed: list[str] = []
        for name, task in tasks.items():
            if task in done and task.exception() is None:
                rankings[name] = task.result()
                continue
            failed.append(name)
            reason = "timeout" if task in pending else type(task.exception()).__name__
            log.warning(
                "retrieval_route_failed", route=name, reason=reason, exc_info=task.exception() if task in done else None
            )
        if not rankings:
            raise RetrievalError("every retrieval route failed")
        return rankings, failed

    async def _translated_route(self, query, pool, corpus, timings, vectors) -> list[tuple[str, float]]:
        """The keyword route over the LLM's classical wording of the question (none: no votes)."""
        assert self._translator is not None
        started = time.perf_counter()
        wording = await self._translator.translate(query, timeout_s=self.config.budget_s / 2)
        timings["translate"] = ms(started)
        return await self._keyword_route(wording, pool, corpus, {}) if wording else []

    async def _keyword_route(
        self, query: str, pool: int, corpus: str, timings: dict, vectors: dict | None = None
    ) -> list[tuple[str, float]]:
        started = time.perf_counter()
        language = query_language(query)
        if self.config.english_expansion and language == "en":
            query = expand_english(query)  # the corpus is Chinese: search the glossary's terms
        elif self.config.question_filter and language == "zh":  # 孔子怎么看管仲 → 管仲; 反省 → + 省
            query = f"{strip_question_words(query)} {expand_modern(query)}".strip()
        small = len(self._keyword_index) <= INLINE_MAX_PASSAGES
        hits = await maybe_thread(small, self._keyword_index.search, query, pool, corpus) if query else []
        timings["keyword"] = ms(started)
        return hits

    def _fuse(self, query, rankings, corpus, mode, timings, topic: TopicQuery | None = None) -> list[Fused]:
        started = time.perf_counter()
        if self.config.fusion in ("score", "dbsf"):
            weights = flat_weights(rankings, self.config.weights, self.config.flat_gap)  # a flat route votes less
            fused = score_fusion(rankings, weights, "dbsf" if self.config.fusion == "dbsf" else "minmax")
        else:
            fused = rrf(
                {r: [i for i, _ in hits] for r, hits in rankings.items()}, self.config.weights, self.config.rrf_k
            )
        if mode == "hybrid" and self.config.book_hint and corpus == "all":
            fused = book_first(fused, book_hint(query), self._passages, speakers=topic is None)
        if mode == "hybrid" and self.config.verbatim_boost:
            key = quote_key(query)
            if key:
                containing = self._verbatim_index.containing(key, corpus)
                fused = promote(fused, containing, self._verbatim_index.aligned(key, containing))
        if topic is not None and (topic.survey or topic.listing):
            ranking = ThemeIndex.ranking(topic, corpus)
            if not topic.survey:  # a narrowed list (哪几首写男女相思的诗): the theme's passages, as the words rank them
                theme = {pid for pid, _ in ranking}
                ranking = [(f.id, f.score) for f in fused if f.id in theme]
            fused = survey_first(fused, ranking)
        if mode == "hybrid" and self.config.quotes_first and self._lines is not None:
            fused = lines_first(self._lines, self._passages, query, fused, corpus)
        if mode == "hybrid" and "shijing" in books_in(corpus):
            fused = linked_sources(fused, self._passages, query)
        timings["fusion"] = ms(started)
        return fused

    async def _maybe_rerank(self, query, fused, k, mode, clock, timings):
        if self._reranker is None or mode != "hybrid" or len(fused) < 2:
            return fused, None
        pool = fused[: max(k, self.config.rerank_pool)]
        started = time.perf_counter()
        try:
            scores = await asyncio.wait_for(
                self._reranker.score(query, [self._passages[f.id] for f in pool]), timeout=clock.remaining()
            )
            if len(scores) != len(pool):
                raise RerankError(f"reranker returned {len(scores)} scores for {len(pool)} passages")
        except (TimeoutError, Exception) as exc:  # noqa: BLE001 - any failure falls back
            log.warning("rerank_failed_fused_order_kept", reranker=self._reranker.name, reason=type(exc).__name__)
            timings["rerank"] = ms(started)
            return fused, None
        timings["rerank"] = ms(started)
        by_id = {f.id: s for f, s in zip(pool, scores)}
        # Verbatim containment stays on top; within each group, rerank score then fused order.
        ranked = sorted(pool, key=lambda f: (-f.line, not f.verbatim, -by_id[f.id]))
        return ranked, by_id

    def _result(self, fused: Fused, rerank_scores: dict[str, float] | None) -> SearchResult:
        p = self._passages[fused.id]
        return SearchResult(
            id=p.id,
            ref=p.ref,
            corpus=p.corpus,
            title=p.title,
            text=p.text,
            fusion_score=fused.score,
            rerank_score=None if rerank_scores is None else rerank_scores.get(fused.id),
            routes=dict(fused.routes),
            verbatim=fused.verbatim,
            meta=dict(p.meta),
        )
