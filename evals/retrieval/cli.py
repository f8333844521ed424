"""The retrieval lab commands (`python -m evals eval|bench`).

* `eval [FILE …] [--heldout]`: `fuzi eval` with the lab's sets as default files: the dev sets of the
  retrieval tasks (evals/{retrieval,retrieval_en,topics,four_books,fresh}/dev.jsonl), or their held-out
  sets.
  With `--rerank-answers FILE …`, the LLM reranker ranks, its answers replayed from FILE
  (evals/retrieval/llm_answers.py).
* `rerank-prompts FILE … --out FILE`: the LLM reranker's prompts for those queries, to be answered.
* `bench [--queries FILE] [--synthetic N]`: per-stage latency, index build time and peak RSS
  (evals/retrieval/bench.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot.commands import retrieval as product
from evals.retrieval import llm_answers

EVALS = Path(__file__).resolve().parents[1]
TASKS = ("retrieval", "retrieval_en", "topics", "four_books", "fresh")  # evals/<task>/{dev,heldout}.jsonl


def register(sub: argparse._SubParsersAction) -> None:
    """Add `eval` and `bench`."""
    p = sub.add_parser("eval", help="fuzi eval on the retrieval tasks' dev sets (or --heldout)")
    product.add_eval_arguments(p, nargs="*")
    p.add_argument("--heldout", action="store_true", help="default files: the held-out sets instead of dev")
    p.add_argument("--rerank-answers", nargs="+", type=Path, help="rerank with the LLM reranker, answers replayed")
    p.set_defaults(func=evaluate)
    p = sub.add_parser("rerank-prompts", help="the LLM reranker's prompts for these queries (to be answered)")
    p.add_argument("file", nargs="+", help="evaluation files")
    p.add_argument("--out", required=True, help="JSONL file of {sha, prompt}")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--corpus", choices=product.CORPORA, default="all")
    p.set_defaults(func=llm_answers.record)
    p = sub.add_parser("bench", help="per-stage latency, index build time, peak RSS")
    p.add_argument("--queries", default=str(EVALS / "retrieval" / "dev.jsonl"), help="queries to time (JSONL)")
    p.add_argument("--synthetic", type=int, default=0, help="also time a synthetic corpus of N passages")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=bench)


def evaluate(args: argparse.Namespace) -> int:
    """`fuzi eval` on the given files, or on the default sets of `TASKS`."""
    if not args.file:
        split = "heldout" if args.heldout else "dev"
        args.file = [str((EVALS / task / f"{split}.jsonl").relative_to(EVALS.parent)) for task in TASKS]
    if not args.rerank_answers:
        return product.run_eval_files(args)
    opener, replayer = llm_answers.replaying_opener(args.rerank_answers)
    status = product.run_eval_files(args, opener)
    print(f"reranker: {replayer.missing} prompts without a recorded answer (fused order kept)", file=sys.stderr)
    return status


def bench(args: argparse.Namespace) -> int:
    """Run the benchmark with the configured store, embedder and reranker."""
    from bot.retrieval_factory import build_embedder, build_reranker, build_store, retriever_config
    from evals.retrieval.bench import run_benchmark

    async def go(settings) -> int:
        report = await run_benchmark(
            build_store(settings),
            build_embedder(settings),
            config=retriever_config(settings),
            reranker=build_reranker(settings),
            corpus_dir=settings.corpus_path,
            queries_path=args.queries,
            synthetic=args.synthetic,
        )
        print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else _text(report))
        return 0

    return product.run_with_retriever(go)


def _text(report: dict) -> str:
    lines = []
    for name, section in report.items():
        lines.append(f"{name}:")
        for key, value in section.items() if isinstance(section, dict) else [("value", section)]:
            lines.append(f"  {key}: {value}")
    return "\n".join(lines)
