"""Per-class retrieval quality for each route and fusion variant, as a Markdown table.

    FUZI_CORPUS_DIR=../shared/corpus python benchmarks/retrieval_eval.py [evals/retrieval_dev.jsonl]

Uses the configured index (`fuzi index` first). Variants: vector only, keyword only, naive RRF
(the same two routes, equal weights, no containment rule, no per-query-type weights) and the
shipped hybrid.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.retrieval_factory import build_embedder, build_store, retriever_config  # noqa: E402
from bot.settings import load_settings  # noqa: E402
from core.retrieval.metrics import load_queries, run_eval  # noqa: E402
from core.retrieval.retriever import HybridRetriever  # noqa: E402

METRICS = ("recall@1", "recall@5", "recall@10", "mrr", "ndcg@5")


async def main(path: str) -> dict:
    settings = load_settings()
    queries = load_queries(ROOT / path)
    # A generous budget: quality figures should not depend on what else the machine is doing.
    shipped = dataclasses.replace(retriever_config(settings), budget_s=60)
    # Same two routes as the single-route rows (glossary, question filter), fused by plain equal-weight
    # RRF: no containment rule, no per-query-type weights.
    naive = dataclasses.replace(shipped, verbatim_boost=False, language_weights=False, question_weights=None)
    variants = {"vector": ("vector", shipped), "keyword": ("keyword", shipped), "rrf-naive": ("hybrid", naive), "hybrid": ("hybrid", shipped)}
    out: dict = {}
    for name, (mode, config) in variants.items():
        embedder = build_embedder(settings)  # fresh query cache for each variant: honest latencies
        retriever = HybridRetriever(build_store(settings), embedder, config=config)
        await retriever.start()
        summary, classes, _ = await run_eval(retriever, queries, mode=mode)
        out[name] = {"all": summary, **classes}
    return out


def table(results: dict) -> str:
    classes = [c for c in next(iter(results.values())) if c != "no_answer"]
    lines = ["| class | n | variant | " + " | ".join(METRICS) + " | p50 ms | p95 ms |", "|" + "---|" * (len(METRICS) + 5)]
    for cls in classes:
        for name, per in results.items():
            s = per[cls]
            lines.append(f"| {cls} | {s['n']} | {name} | " + " | ".join(f"{s[m]:.3f}" for m in METRICS) + f" | {s['p50_ms']} | {s['p95_ms']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    res = asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "evals/retrieval_dev.jsonl"))
    Path("/tmp/retrieval_eval.json").write_text(json.dumps(res, ensure_ascii=False, indent=1))
    print(table(res))
