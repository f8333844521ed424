"""Rank fusion (reciprocal-rank or normalised-score) and the verbatim-quote rule.

RRF: score(d) = Σ_route weight_route / (k + rank_route(d)), ranks 1-based, k = 60. Only the ranks
matter, so cosine similarities and BM25 scores never have to share a scale. Score fusion: each
route's scores min-max normalised over the candidates it returned, then summed. Neither has a
parameter chosen on our evaluation sets (k = 60 is the published default, weights are 1). Ties go
to the smaller passage id in corpus order, so the same input always gives the same order.
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import dataclass, field

from core.books import is_later
from core.language.text import cjk_count, has_cjk, squash
from core.retrieval.documents import sort_key

RRF_K = 60
MIN_QUOTE_CHARS = 4  # a quote: the containing passages rank first
MIN_TERM_CHARS = 2  # a bare 2-3 character term (a name such as 管仲, 曾皙) follows the same rule
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# Each route's weight for one query shrinks when its own ranking is flat (no clear winner), since min-max
# normalisation would still spread near-tied candidates over [0, 1]: weight × max(FLAT_FLOOR, min(1,
# spread / gap)), spread = 1st − FLAT_NTH-th score; cosine for the vector route (gap FLAT_GAP), relative
# to the 1st for BM25 (gap KEYWORD_FLAT_GAP). Chosen on dev among gaps, floors, the vector route alone
# and other confidence rules (docs/retrieval-decisions.md).
FLAT_GAP = 0.02
KEYWORD_FLAT_GAP = 0.5
FLAT_FLOOR = 0.5
FLAT_NTH = 5
GLOSS_WEIGHT = 0.75  # the `gloss` route's vote (glosses.py), chosen on dev (docs/retrieval.md)


@dataclass(frozen=True)
class Fused:
    """One fused candidate: its id, fused score and the 1-based rank each route gave it.

    `verbatim`: it contains the query, or the query contains a line of it; `line`: the length of
    the longest line of it that the query contains (0: none; such passages rank first).
    """

    id: str
    score: float
    routes: dict[str, int] = field(default_factory=dict)
    verbatim: bool = False
    line: int = 0


def rrf(rankings: dict[str, list[str]], weights: dict[str, float], k: int = RRF_K) -> list[Fused]:
    """Fuse ranked id lists (best first) by weighted RRF; ties broken by corpus order of id."""
    scores: dict[str, float] = {}
    routes: dict[str, dict[str, int]] = {}
    for route, ids in rankings.items():
        weight = weights.get(route, 1.0)
        for rank, doc_id in enumerate(ids, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
            routes.setdefault(doc_id, {})[route] = rank
    order = sorted(scores, key=lambda d: (-scores[d], sort_key(d)))
    return [Fused(d, scores[d], routes[d]) for d in order]


def flat_weights(
    scored: dict[str, list[tuple[str, float]]], weights: dict[str, float], gap: float = FLAT_GAP
) -> dict[str, float]:
    """This query's route weights: the vector and keyword routes' weights times max(FLAT_FLOOR,
    min(1, spread / gap)) — spread = 1st − 5th score (cosine; BM25 relative to its 1st). A flat ranking
    votes less, a clear winner fully; `gap` ≤ 0 (off) or fewer than 5 candidates: unchanged."""
    out = dict(weights)
    for route, route_gap, relative in (("vector", gap, False), ("keyword", KEYWORD_FLAT_GAP, True)):
        hits = scored.get(route) or []
        if gap <= 0 or len(hits) < FLAT_NTH or (relative and hits[0][1] <= 0):
            continue
        spread = hits[0][1] - hits[FLAT_NTH - 1][1]
        spread = spread / hits[0][1] if relative else spread
        out[route] = weights.get(route, 1.0) * max(FLAT_FLOOR, min(1.0, spread / route_gap))
    return out


def score_fusion(
    scored: dict[str, list[tuple[str, float]]], weights: dict[str, float], norm: str = "minmax"
) -> list[Fused]:
    """Fuse (id, score) lists (best first) by summing normalised scores per route.

    `norm`: "minmax" maps each route's candidates to [0, 1] (best 1, worst 0); "dbsf" maps
    mean ± 3 standard deviations of the route's candidates to [0, 1], clipped. A route whose
    candidates all score the same gives each of them 1. Ties by corpus order of id.
    """
    scores: dict[str, float] = {}
    routes: dict[str, dict[str, int]] = {}
    for route, hits in scored.items():
        if not hits:
            continue
        weight = weights.get(route, 1.0)
        values = [s for _, s in hits]
        low, high = min(values), max(values)
        if norm == "dbsf" and len(values) > 1:
            mean = sum(values) / len(values)
            std = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
            low, high = mean - 3 * std, mean + 3 * std
        span = high - low
        for rank, (doc_id, score) in enumerate(hits, start=1):
            value = min(1.0, max(0.0, (score - low) / span)) if span > 0 else 1.0
            scores[doc_id] = scores.get(doc_id, 0.0) + weight * value
            routes.setdefault(doc_id, {})[route] = rank
    order = sorted(scores, key=lambda d: (-scores[d], sort_key(d)))
    return [Fused(d, scores[d], routes[d]) for d in order]


def quote_key(query: str) -> str | None:
    """The squashed query when passages containing it should rank first, else None.

    That is a verbatim quote (≥ 4 CJK characters after removing punctuation) or a bare term of 2-3
    CJK characters (a name); queries with Latin words never qualify.
    """
    key = squash(query)
    cjk = cjk_count(key)
    if _LATIN_WORD.search(query) or cjk < MIN_TERM_CHARS:
        return None
    if cjk < MIN_QUOTE_CHARS and cjk != len(key):
        return None
    return key


def promote(fused: list[Fused], containing: list[str], aligned: Set[str] = frozenset()) -> list[Fused]:
    """Put passages that contain the query verbatim first, keeping the fused order among them.

    Containing passages the routes did not recall are added (after recalled ones, in corpus order).
    Passages in `aligned` (the quote covers whole clauses there) go before the other containing ones,
    and within each group a source before a later book that quotes it (quotes.py).
    """
    if not containing:
        return fused
    contain = set(containing)
    top = [Fused(f.id, f.score, f.routes, True) for f in fused if f.id in contain]
    seen = {f.id for f in top}
    top += [Fused(d, 0.0, {}, True) for d in sorted(contain - seen, key=sort_key)]
    top.sort(key=lambda f: (f.id not in aligned, is_later(f.id)))  # stable: fused order within each group
    return top + [f for f in fused if f.id not in contain]


def query_language(query: str) -> str:
    """ "zh" when the query has CJK characters, "en" when it is Latin words only, else "other"."""
    if has_cjk(query):
        return "zh"
    return "en" if _LATIN_WORD.search(query) else "other"
