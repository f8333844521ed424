"""Ranking metrics and the evaluation runner behind `fuzi eval`.

Relevance is binary (an id is gold or not). Recall@k is *capped* recall: gold passages found in the
top k divided by min(k, number of gold) — so a query with several equally right passages (the same
saying appears twice in the Analects) scores 1.0 at k=1 when the first result is any of them.
Queries with an empty gold list (no answer in the books) are excluded from ranking metrics and
counted separately.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

KS = (1, 5, 10)


@dataclass(frozen=True)
class EvalQuery:
    """One line of an evaluation file."""

    query: str
    gold: tuple[str, ...]
    cls: str = "unlabelled"


def recall_at(ranked: list[str], gold: Iterable[str], k: int) -> float:
    gold = set(gold)
    if not gold:
        return 0.0
    return len(gold.intersection(ranked[:k])) / min(k, len(gold))


def reciprocal_rank(ranked: list[str], gold: Iterable[str]) -> float:
    gold = set(gold)
    for i, doc in enumerate(ranked, start=1):
        if doc in gold:
            return 1.0 / i
    return 0.0


def ndcg_at(ranked: list[str], gold: Iterable[str], k: int) -> float:
    gold = set(gold)
    if not gold:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 1) for i, doc in enumerate(ranked[:k], start=1) if doc in gold)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(k, len(gold)) + 1))
    return dcg / ideal


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarise(rows: list[tuple[EvalQuery, list[str], float]]) -> dict:
    """Aggregate metrics over (query, ranked ids, latency ms) rows."""
    answerable = [(q, ranked) for q, ranked, _ in rows if q.gold]
    n = len(answerable)
    out: dict = {"n": n, "n_no_answer": len(rows) - n}
    for k in KS:
        out[f"recall@{k}"] = _mean(recall_at(r, q.gold, k) for q, r in answerable)
    out["precision@5"] = _mean(len(set(r[:5]) & set(q.gold)) / 5 for q, r in answerable)
    out["mrr"] = _mean(reciprocal_rank(r, q.gold) for q, r in answerable)
    out["ndcg@5"] = _mean(ndcg_at(r, q.gold, 5) for q, r in answerable)
    latencies = [ms for _, _, ms in rows]
    out["p50_ms"] = round(percentile(latencies, 50), 2)
    out["p95_ms"] = round(percentile(latencies, 95), 2)
    return out


def by_class(rows: list[tuple[EvalQuery, list[str], float]]) -> dict[str, dict]:
    groups: dict[str, list] = defaultdict(list)
    for row in rows:
        groups[row[0].cls].append(row)
    return {cls: summarise(group) for cls, group in sorted(groups.items())}


def load_queries(path: Path) -> list[EvalQuery]:
    """Read `{"query": str, "gold": [id, …], "class": str?}` lines (blank lines and # comments skipped)."""
    queries = []
    for no, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            item = json.loads(line)
            queries.append(
                EvalQuery(str(item["query"]), tuple(item.get("gold") or ()), str(item.get("class", "unlabelled")))
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{no}: not an evaluation line ({exc})") from None
    return queries


async def run_eval(retriever, queries: list[EvalQuery], *, k: int = 10, mode: str = "hybrid", corpus: str = "all"):
    """Search every query; return (overall summary, per-class summaries, rows)."""
    rows = []
    for q in queries:
        started = time.perf_counter()
        response = await retriever.search(q.query, k=max(k, max(KS)), corpus=corpus, mode=mode)
        ms = (time.perf_counter() - started) * 1000
        rows.append((q, [r.id for r in response.results], ms))
    return summarise(rows), by_class(rows), rows


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4) if values else 0.0
