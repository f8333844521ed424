"""A first start killed during its index build, then the next start (bot/first_start.py): that start
serves the partial table at once, brings it up to the corpus and adds the sentence vectors in the
background, then reads the whole tables, and the start after it reads a saved state of the whole
tables (core/retrieval/table_state.py)."""

from __future__ import annotations

import io
from contextlib import AsyncExitStack

import pytest

from bot.first_start import keyword_first, prepare_data
from bot.progress import Progress
from bot.retrieval_factory import build_embedder, build_store
from bot.settings import Settings
from core.retrieval.documents import load_corpus
from core.retrieval.embedder import HashingEmbedder
from core.retrieval.indexer import build_index
from core.retrieval.retriever import HybridRetriever
from core.retrieval.store import PassageStore


class Killed(BaseException):
    """The process dies here (kill -9): nothing after it runs, no state is saved."""


@pytest.fixture
def settings(tmp_path, monkeypatch, corpus_dir):
    monkeypatch.setenv("FUZI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FUZI_CORPUS_DIR", str(corpus_dir))
    monkeypatch.setenv("FUZI_RETRIEVAL_EMBEDDER", "hashing")
    return Settings()


def killed_after(batches: int):
    def progress(done: int, total: int) -> None:
        if done >= batches * 64:
            raise Killed

    return progress


async def test_the_start_after_a_killed_first_build_completes_it_and_saves_the_whole_table(settings, corpus_dir):
    passages = load_corpus(corpus_dir)
    with pytest.raises(Killed):  # the first start's build, killed after ten batches were written
        build_index(build_store(settings), build_embedder(settings), passages, progress=killed_after(10))
    assert build_store(settings).count() == 640

    out = io.StringIO()
    build = await prepare_data(settings, Progress(out, rich=False))
    assert build is not None and build.refresh and "the index 640: updating it" in out.getvalue()
    async with AsyncExitStack() as stack:
        retriever = await keyword_first(settings, None, HashingEmbedder(), build, stack)
        assert retriever.size == 640  # served as it is meanwhile
    # the exit waited for the update and the sentence vectors; the retriever switched to the whole table
    assert retriever.size == len(passages) and retriever._store.count() == len(passages)

    store = build_store(settings)
    assert store.load_state() and store.count() == len(passages)  # the state saved is the whole table's
    in_lancedb = build_store(settings).sentences.hashes()  # and all the sentence vectors, built meanwhile
    assert store.sentences.hashes() == in_lancedb and len(in_lancedb) > 640
    assert await prepare_data(settings, Progress(io.StringIO(), rich=False)) is None  # nothing left to build
    again = HybridRetriever(build_store(settings), HashingEmbedder())
    await again.start()
    assert again.size == len(passages) and (await again.search("管仲之器小哉", k=1)).results[0].id == "lunyu:3.22"


async def test_a_start_after_an_upgrade_changed_the_glosses_brings_their_vectors_up_to_date(
    settings, corpus_dir, tmp_path, monkeypatch
):
    import shutil

    from core.retrieval import glosses as gloss_files
    from core.retrieval.gloss_vectors import GlossVectors

    folder = tmp_path / "glosses"
    shutil.copytree(gloss_files.GLOSS_DIR, folder)
    monkeypatch.setattr(gloss_files, "GLOSS_DIR", folder)
    passages = load_corpus(corpus_dir)
    store = build_store(settings)
    build_index(store, build_embedder(settings), passages, sentences=True, glosses=True)
    saved = sorted((store.path / ".glosses").glob("*.npz"))
    assert len(saved) == 1 and not GlossVectors.maybe_stale(store)
    assert await prepare_data(settings, Progress(io.StringIO(), rich=False)) is None  # nothing to do

    segments = sorted((folder / "segments").glob("*.jsonl"))[0]  # an upgrade edits one rendering
    lines = segments.read_text("utf-8").splitlines()
    segments.write_text("\n".join([lines[0].replace("孔子", "夫子", 1), *lines[1:]]) + "\n", "utf-8")
    out = io.StringIO()
    build = await prepare_data(settings, Progress(out, rich=False))
    assert build is not None and build.table_built and "checking the gloss vectors" in out.getvalue()
    async with AsyncExitStack() as stack:
        await keyword_first(settings, None, HashingEmbedder(), build, stack)
    now = sorted((store.path / ".glosses").glob("*.npz"))
    assert len(now) == 1 and now != saved  # the vectors of the edited glosses replaced the old ones
    assert await prepare_data(settings, Progress(io.StringIO(), rich=False)) is None

    segments.touch()  # a newer file with the same content (a fresh checkout): checked once, nothing embedded
    build = await prepare_data(settings, Progress(io.StringIO(), rich=False))
    assert build is not None
    async with AsyncExitStack() as stack:
        await keyword_first(settings, None, HashingEmbedder(), build, stack)
    assert sorted((store.path / ".glosses").glob("*.npz")) == now
    assert await prepare_data(settings, Progress(io.StringIO(), rich=False)) is None
