"""How far any reranker could go: `python -m evals rerank-ceiling FILE … [--pool 20,30]`.

A reranker orders only the candidates it is shown: the fused top `rerank_pool` (20). For each query of
FILE … this runs the search as `fuzi eval` does (k=10) with a reranker that keeps the fused order and
notes the candidates it was shown, then scores a perfect choice among them: hit@1 is 1 when a gold
passage is among them, P@5 is min(5, gold among them) / 5. Per class, for each pool size asked.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from core.types import Passage


class Shown:
    """A reranker that keeps the fused order and remembers the ids it was last shown."""

    name = "shown"

    def __init__(self) -> None:
        self.ids: list[str] = []

    async def score(self, query: str, passages: Sequence[Passage]) -> list[float]:
        self.ids = [p.id for p in passages]
        return [float(len(passages) - i) for i in range(len(passages))]


async def candidates(retriever, shown: Shown, query: str, pool: int) -> list[str]:
    """The ids a reranker is shown for `query` with a pool of `pool`, searched as `fuzi eval` searches;
    where the search asks no reranker (fewer than two candidates), the results it gives."""
    from core.retrieval.metrics import KS

    retriever.config = dataclasses.replace(retriever.config, rerank_pool=pool)
    shown.ids = []  # not the previous query's when this one never reaches the reranker
    response = await retriever.search(query, k=max(KS))
    return shown.ids or [r.id for r in response.results]


def perfect(gold: Sequence[str], shown: Sequence[str]) -> tuple[float, float]:
    """hit@1 and P@5 of a perfect choice among `shown`: a gold passage first, as many as there are next."""
    found = len(set(gold) & set(shown))
    return float(found > 0), min(5, found) / 5


def ceiling(args: argparse.Namespace) -> int:
    """Print, per file and class, a perfect reranker's hit@1 / P@5 for each pool size in `args.pool`."""
    from bot.commands.retrieval import run_with_retriever
    from bot.retrieval_factory import build_retriever
    from core.retrieval.metrics import load_queries

    pools = [int(n) for n in args.pool.split(",")]
    shown = Shown()

    async def go(settings) -> int:
        retriever = await build_retriever(settings, reranker=shown)
        for path in args.file:
            per: dict[tuple[str, int], list[tuple[float, float]]] = defaultdict(list)
            for q in load_queries(Path(path)):
                if not q.gold:
                    continue
                for n in pools:
                    per[(q.cls, n)].append(perfect(q.gold, await candidates(retriever, shown, q.query, n)))
            for (cls, n), rows in sorted(per.items()):
                hit, p5 = (sum(col) / len(rows) for col in zip(*rows))
                print(f"{path}  {cls}  pool={n}  n={len(rows)}  hit@1≤{hit:.3f}  P@5≤{p5:.3f}")
        return 0

    return run_with_retriever(go)


def register(sub: argparse._SubParsersAction) -> None:
    """Add `rerank-ceiling`."""
    p = sub.add_parser("rerank-ceiling", help="a perfect reranker's hit@1 / P@5 among the candidates it is shown")
    p.add_argument("file", nargs="+", help="evaluation files")
    p.add_argument("--pool", default="20", help="comma-separated pool sizes (default: the product's 20)")
    p.set_defaults(func=ceiling)
