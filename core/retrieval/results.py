"""What a search returns and how it is configured: `RetrieverConfig`, `SearchResult`,
`SearchResponse`, and the two errors a search can raise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.retrieval.embedder import QUERY_MAX_TOKENS
from core.retrieval.fusion import FLAT_GAP, GLOSS_WEIGHT, RRF_K


class RetrievalError(Exception):
    """No route produced results (both failed or the budget ran out)."""


class RetrieverNotReady(Exception):
    """The retriever cannot serve: not started, or the keyword index does not match the table."""


@dataclass(frozen=True)
class RetrieverConfig:
    """Fusion and budget knobs.

    Attributes:
        fusion: "rrf" (reciprocal rank, k = `rrf_k`) or "score" (min-max normalised scores summed).
        weights: weight per route (vector, keyword, gloss; others 1.0), the same for every query (no per-query-type weights: those were
            fitted to an early dev set and lost on unseen queries; docs/retrieval.md).
        rrf_k: RRF constant.
        oversample: each route recalls `oversample × k` candidates before fusion.
        rerank_pool: at most this many fused candidates go to the reranker.
        budget_s: time budget for one search, rerank included.
        verbatim_boost: rank passages containing a quote (≥ 4 characters) or a bare 2-3 character
            name first (hybrid mode).
        english_expansion: the keyword route searches the glossary's Chinese terms for the English
            words of a Latin-script query (core/retrieval/glossary.py).
        question_filter: the keyword route drops the scaffolding of modern-Chinese questions
            (怎么, 什么, 的 …; core/retrieval/keyword.py `strip_question_words`).
        tokenizer: keyword tokens, "bigram" (characters and character pairs) or "jieba" (jieba words and characters, for comparison).
        snapshot: save the keyword/verbatim index and passages next to the table, keyed by its
            content, and load them at the next start instead of re-tokenising.
        sentence_vectors: "off"; "max" (a passage's vector score is the best of its own and its
            sentences' similarities); "route" (sentence hits, mapped to passages, are a third
            fused route). Needs `fuzi index` with sentence vectors.
        quotes_first: a query that contains a whole line of a passage (≥ 6 characters, punctuation
            and script aside) ranks that passage first, before every other rule (quotes.py).
        book_hint: the passages of the book a question names (a poem/song/诗 question, or one naming
            Confucius/论语) rank before the other book's, fused order kept within each (ordering.py).
        flat_gap: the vector route's weight shrinks for a query whose 1st and 5th candidates are
            closer than this in cosine, the keyword route's likewise (`fusion.flat_weights`; 0: off).
        topics: a topic question ("诗经里有哪些写爱情的诗？") ranks the theme's passages (themes.py).
        query_tokens: the vector route embeds at most this many tokens of a query's head
            (`embedder.query_head`; 0: all of it); the other routes read the whole query.
    """

    fusion: str = "score"
    weights: dict[str, float] = field(default_factory=lambda: {"vector": 1.0, "keyword": 1.0, "gloss": GLOSS_WEIGHT})
    rrf_k: int = RRF_K
    oversample: int = 4
    rerank_pool: int = 20
    budget_s: float = 3.0
    flat_gap: float = FLAT_GAP
    verbatim_boost: bool = True
    english_expansion: bool = True
    question_filter: bool = True
    tokenizer: str = "bigram"
    snapshot: bool = True
    sentence_vectors: str = "max"
    quotes_first: bool = True
    topics: bool = True
    book_hint: bool = True
    query_tokens: int = QUERY_MAX_TOKENS


@dataclass(frozen=True)
class SearchResult:
    """A passage as retrieval returns it: full text and metadata whichever route found it.

    Attributes:
        fusion_score: weighted RRF score (0 for a verbatim match no route recalled).
        rerank_score: the reranker's score, None when the results were not reranked.
        routes: route name → 1-based rank in that route (absent when the route missed it).
        verbatim: the passage contains the query verbatim.
    """

    id: str
    ref: str
    corpus: str
    title: str
    text: str
    fusion_score: float
    rerank_score: float | None
    routes: dict[str, int]
    verbatim: bool = False
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "ref": self.ref,
            "corpus": self.corpus,
            "title": self.title,
            "text": self.text,
            "fusion_score": round(self.fusion_score, 6),
            "rerank_score": self.rerank_score,
            "routes": dict(self.routes),
            "verbatim": self.verbatim,
        }


@dataclass(frozen=True)
class SearchResponse:
    """Results plus how they were made.

    Attributes:
        degraded: a route failed or timed out; the results come from the other one.
        reranked: the reranker ordered these results (False: fused order).
        failed_routes: names of the routes that failed.
        timings_ms: milliseconds per stage (embed, vector, keyword, fusion, rerank, total).
        unheld: books the query names that the index does not hold (荀子, or 孟子 when its file is
            missing): the answer says which books Fuzi reads (core/books/named.py), `held` (their ids).
        topic: the themes of a topic survey ("诗经里有哪些写爱情的诗？" → "爱情"), else None: the
            results are a list of fitting passages, to be named rather than quoted in full.
    """

    results: list[SearchResult]
    degraded: bool = False
    reranked: bool = False
    failed_routes: tuple[str, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    topic: str | None = None
    unheld: tuple[str, ...] = ()
    held: tuple[str, ...] = ()
