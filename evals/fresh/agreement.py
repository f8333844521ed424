"""How well one list of passages per question scores against another file's golds: hit@1 and P@5,
the figures `fuzi eval` gives a topic class, with a reader's ordered list in place of the retriever's.

Both files are evaluation lines (`{"query", "gold"[, "class"]}`); the first file's `gold` is read as a
ranking (most central first), the second's as the set that counts. Only questions in both are scored.
Run: python -m evals.fresh.agreement evals/fresh/heldout_reader.jsonl evals/fresh/heldout.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from core.retrieval.metrics import load_queries


def agreement(ranked: dict[str, list[str]], gold: dict[str, set[str]]) -> dict:
    """hit@1 and P@5 (|top 5 ∩ gold| / 5) over the questions both sides hold."""
    shared = [q for q in ranked if q in gold]
    if not shared:
        raise ValueError("no question is in both files")
    hit = sum(bool(ranked[q]) and ranked[q][0] in gold[q] for q in shared) / len(shared)
    p5 = sum(len(set(ranked[q][:5]) & gold[q]) / 5 for q in shared) / len(shared)
    return {"n": len(shared), "hit@1": round(hit, 3), "precision@5": round(p5, 3)}


def main(argv: list[str] | None = None) -> int:
    """Print the agreement of RANKED's lists with GOLD's sets as JSON."""
    parser = argparse.ArgumentParser(prog="python -m evals.fresh.agreement", description=__doc__)
    parser.add_argument("ranked", type=Path, help="evaluation lines whose gold is a ranking")
    parser.add_argument("gold", type=Path, help="evaluation lines whose gold counts")
    args = parser.parse_args(argv)
    ranked = {q.query: list(q.gold) for q in load_queries(args.ranked)}
    gold = {q.query: set(q.gold) for q in load_queries(args.gold)}
    print(json.dumps(agreement(ranked, gold)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
