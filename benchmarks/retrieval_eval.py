"""Per-class retrieval quality of each route and fusion variant, as a Markdown table.

    FUZI_CORPUS_DIR=../shared/corpus python benchmarks/retrieval_eval.py [EVAL.jsonl] [variant …]

Uses the configured index (`fuzi index` first). Variants (all share one embedder, so each query is
embedded once):

* `vector`, `keyword`: the single routes (keyword with the glossary and the question filter).
* `v1`: the v1 default exactly (jieba keyword tokens, tuned weights, no sentence vectors).
* `v1-tuned`: the v1 default but with bigram keyword tokens — RRF with per-query-type weights (English 0.05 : 1, modern questions
  1 : 5, fitted to the v1 dev set), glossary, question filter, containment rule.
* `rrf`: equal-weight RRF (k = 60) + containment rule, glossary and question filter (the v2 default).
* `score`: min-max normalised score fusion instead of RRF, otherwise as `rrf`.
* `rrf-no-glossary`, `rrf-no-filter`, `rrf-no-verbatim`: `rrf` without one piece each.
* `rrf-plain`: equal-weight RRF alone (no containment rule, no glossary, no question filter).
* `dbsf`: score fusion with mean ± 3σ normalisation per route instead of min-max.
* `vector-sent-max`, `score-sent-max`, `score-sent-route`: with sentence vectors (best of passage and
  sentence similarity in the vector route, or sentences as a third route).
* `v2` (= `score-sent-max`, the v2 default) and `v2-no-glossary`, `v2-no-filter`, `v2-no-verbatim`.
* `keyword-jieba`, `rrf-jieba`: the v1 keyword tokens (jieba words + characters) instead of bigrams.
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
from core.retrieval.fusion import query_language  # noqa: E402
from core.retrieval.keyword import is_modern_question  # noqa: E402
from core.retrieval.metrics import load_queries, run_eval  # noqa: E402
from core.retrieval.retriever import HybridRetriever  # noqa: E402

METRICS = ("recall@1", "recall@5", "recall@10", "mrr", "ndcg@5")


class V1TunedRetriever(HybridRetriever):
    """The v1 fusion, kept only to measure it: per-query-type RRF weights fitted to the v1 dev set."""

    ENGLISH = {"vector": 0.05, "keyword": 1.0}
    QUESTION = {"vector": 1.0, "keyword": 5.0}

    def _fuse(self, query, rankings, corpus, mode, timings, *rest, **extra):  # the rest as the base takes it
        weights = self.config.weights
        if query_language(query) == "en":
            weights = self.ENGLISH
        elif is_modern_question(query):
            weights = self.QUESTION
        saved = self.config
        object.__setattr__(self, "config", dataclasses.replace(saved, weights=weights))
        try:
            return super()._fuse(query, rankings, corpus, mode, timings, *rest, **extra)
        finally:
            object.__setattr__(self, "config", saved)


def variants(base):
    r = dataclasses.replace
    return {
        "vector": ("vector", base, HybridRetriever),
        "keyword": ("keyword", base, HybridRetriever),
        "v1": ("hybrid", r(base, fusion="rrf", tokenizer="jieba"), V1TunedRetriever),
        "v1-tuned": ("hybrid", r(base, fusion="rrf"), V1TunedRetriever),
        "rrf": ("hybrid", r(base, fusion="rrf"), HybridRetriever),
        "score": ("hybrid", r(base, fusion="score"), HybridRetriever),
        "rrf-no-glossary": ("hybrid", r(base, fusion="rrf", english_expansion=False), HybridRetriever),
        "rrf-no-filter": ("hybrid", r(base, fusion="rrf", question_filter=False), HybridRetriever),
        "rrf-no-verbatim": ("hybrid", r(base, fusion="rrf", verbatim_boost=False), HybridRetriever),
        "rrf-plain": (
            "hybrid",
            r(base, fusion="rrf", verbatim_boost=False, english_expansion=False, question_filter=False),
            HybridRetriever,
        ),
        "keyword-jieba": ("keyword", r(base, tokenizer="jieba"), HybridRetriever),
        "rrf-jieba": ("hybrid", r(base, fusion="rrf", tokenizer="jieba"), HybridRetriever),
        "dbsf": ("hybrid", r(base, fusion="dbsf"), HybridRetriever),
        "score-sent-max": ("hybrid", r(base, fusion="score", sentence_vectors="max"), HybridRetriever),
        "score-sent-route": ("hybrid", r(base, fusion="score", sentence_vectors="route"), HybridRetriever),
        "vector-sent-max": ("vector", r(base, sentence_vectors="max"), HybridRetriever),
        "v2": ("hybrid", r(base, fusion="score", sentence_vectors="max"), HybridRetriever),
        "v2-no-glossary": (
            "hybrid",
            r(base, fusion="score", sentence_vectors="max", english_expansion=False),
            HybridRetriever,
        ),
        "v2-no-filter": (
            "hybrid",
            r(base, fusion="score", sentence_vectors="max", question_filter=False),
            HybridRetriever,
        ),
        "v2-no-verbatim": (
            "hybrid",
            r(base, fusion="score", sentence_vectors="max", verbatim_boost=False),
            HybridRetriever,
        ),
        "rrf-sent-max": ("hybrid", r(base, fusion="rrf", sentence_vectors="max"), HybridRetriever),
        "score-no-glossary": ("hybrid", r(base, fusion="score", english_expansion=False), HybridRetriever),
        "score-no-filter": ("hybrid", r(base, fusion="score", question_filter=False), HybridRetriever),
    }


async def main(path: str, names: list[str]) -> dict:
    settings = load_settings()
    queries = load_queries(ROOT / path)
    # A generous budget: quality figures should not depend on what else the machine is doing.
    # Variants name every choice they make: the base has no sentence vectors and RRF.
    base = dataclasses.replace(
        retriever_config(settings), budget_s=60, fusion="rrf", sentence_vectors="off", tokenizer="bigram"
    )
    embedder = build_embedder(settings)
    embedder._cache_size = 100_000  # one embedding per query for all variants
    store = build_store(settings)
    out: dict = {}
    for name, (mode, config, cls) in variants(base).items():
        if names and name not in names:
            continue
        retriever = cls(store, embedder, config=config)
        await retriever.start()
        summary, classes, _ = await run_eval(retriever, queries, mode=mode)
        out[name] = {"all": summary, **classes}
    return out


def table(results: dict) -> str:
    classes = [c for c in next(iter(results.values())) if c != "no_answer"]
    lines = ["| class | n | variant | " + " | ".join(METRICS) + " |", "|" + "---|" * (len(METRICS) + 3)]
    for cls in classes:
        for name, per in results.items():
            s = per[cls]
            lines.append(f"| {cls} | {s['n']} | {name} | " + " | ".join(f"{s[m]:.3f}" for m in METRICS) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    args = sys.argv[1:]
    res = asyncio.run(main(args[0] if args else "evals/retrieval/dev.jsonl", args[1:]))
    Path("/tmp/retrieval_eval.json").write_text(json.dumps(res, ensure_ascii=False, indent=1))
    print(table(res))
