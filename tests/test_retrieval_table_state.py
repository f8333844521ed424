"""The tables' saved state (core/retrieval/table_state.py): a start whose tables have not changed
reads them without LanceDB, and any write — from this process or another — is never hidden by it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from core.retrieval import table_state
from core.retrieval.indexer import build_index
from core.retrieval.retriever import HybridRetriever
from core.retrieval.store import PassageStore
from tests.fakes.retrieval_fixtures import HashingEmbedder, open_retriever, passage

DOCS = [
    passage("lunyu:1.1", "学而时习之，不亦说乎？有朋自远方来，不亦乐乎？人不知而不愠，不亦君子乎？"),
    passage("lunyu:1.3", "巧言令色，鲜矣仁！"),
    passage("shijing:1", "关关雎鸠，在河之洲。窈窕淑女，君子好逑。\n参差荇菜，左右流之。窈窕淑女，寤寐求之。"),
]
TABLES = ["passages", "passages_sentences"]


@pytest.fixture
def index(tmp_path):
    path = tmp_path / "db"
    build_index(PassageStore(path), HashingEmbedder(), DOCS, sentences=True)
    return path


def saved(path):
    return sorted(p.name for p in (path / ".state").glob("*.npz"))


async def results(retriever, query="巧言令色", k=3):
    return [(r.id, round(r.fusion_score, 6)) for r in (await retriever.search(query, k=k)).results]


async def test_a_started_retriever_saves_the_state_and_the_next_start_reads_it_without_lancedb(index):
    first = await open_retriever(index)
    assert len(saved(index)) == 1
    store = PassageStore(index)
    again = HybridRetriever(store, HashingEmbedder())
    await again.start()
    assert store._connection._db is None  # LanceDB was never connected (so never imported by this start)
    assert again.vectors_ready and store.in_memory and store.sentences.in_memory
    for query in ("巧言令色", "学习的快乐", "窈窕淑女"):
        assert await results(again, query) == await results(first, query)


def test_a_home_without_tables_is_known_empty_without_lancedb_and_then_builds(tmp_path):
    """A fresh home's first start asks whether an index exists before its first answer: the answer
    (no) comes from the folder, without importing LanceDB (1–3 s of a fresh clone's first answer)."""
    store = PassageStore(tmp_path / "db")
    store.load_state()
    assert not store.exists() and store.count() == 0 and not store.sentences.exists()
    assert store._connection._db is None
    build_index(store, HashingEmbedder(), DOCS, sentences=True)
    assert store.exists() and store.count() == len(DOCS) and store.sentences.exists()
    again = PassageStore(tmp_path / "db")
    assert again.exists() and again.count() == len(DOCS)


@pytest.mark.processes
def test_a_child_process_start_imports_no_lancedb(index, tmp_path):
    script = (
        "import asyncio, sys\n"
        "from core.retrieval.retriever import HybridRetriever\n"
        "from core.retrieval.store import PassageStore\n"
        "from tests.fakes.retrieval_fixtures import HashingEmbedder\n"
        "async def main():\n"
        "    r = HybridRetriever(PassageStore(sys.argv[1]), HashingEmbedder())\n"
        "    await r.start()\n"
        "    print((await r.search('巧言令色', k=1)).results[0].id, 'lancedb' in sys.modules)\n"
        "asyncio.run(main())\n"
    )
    runs = [subprocess.run([sys.executable, "-c", script, str(index)], capture_output=True, text=True, timeout=120)]
    runs.append(subprocess.run([sys.executable, "-c", script, str(index)], capture_output=True, text=True, timeout=120))
    assert [r.stdout.split()[-2:] for r in runs] == [["lunyu:1.3", "True"], ["lunyu:1.3", "False"]], runs[-1].stderr


async def test_a_write_by_another_store_is_never_hidden_by_the_saved_state(index):
    await open_retriever(index)
    before = saved(index)
    changed = [DOCS[0], passage("lunyu:1.3", "逝者如斯夫，不舍昼夜。"), DOCS[2]]
    build_index(PassageStore(index), HashingEmbedder(), changed, sentences=True)  # another "process"
    store = PassageStore(index)
    assert not store.load_state()  # the tables changed: no state for them
    fresh = HybridRetriever(store, HashingEmbedder())
    await fresh.start()
    assert (await fresh.search("逝者如斯", k=1)).results[0].id == "lunyu:1.3"
    assert (await fresh.get("lunyu:1.3")).text.startswith("逝者")
    assert saved(index) != before and len(saved(index)) == 1  # the new state replaced the old one


async def test_writes_through_a_store_with_a_state_go_to_lancedb(index):
    await open_retriever(index)
    store = PassageStore(index)
    assert store.load_state() and store.count() == 3
    store.delete(["lunyu:1.1"])
    assert store._state is None and store.count() == 2 and "lunyu:1.1" not in store.hashes()
    assert not PassageStore(index).load_state()


def test_the_stamp_follows_every_write_and_not_reads(index):
    first = table_state.stamp(index, TABLES)
    store = PassageStore(index)
    store.hashes(), store.load_flat(), store.sentences.hashes()
    assert table_state.stamp(index, TABLES) == first
    store.upsert([passage("lunyu:1.3", "巧言令色，鲜矣仁！")], HashingEmbedder().embed_passages_sync(["x"]))
    assert table_state.stamp(index, TABLES) != first
    assert table_state.stamp(index, ["passages", "missing"]) != table_state.stamp(index, ["passages"])


async def test_an_unreadable_state_is_not_trusted(index):
    await open_retriever(index)
    (path,) = (index / ".state").glob("*.npz")
    path.write_bytes(b"not a state")
    store = PassageStore(index)
    assert not store.load_state()
    retriever = HybridRetriever(store, HashingEmbedder())
    await retriever.start()
    assert (await retriever.search("巧言令色", k=1)).results[0].id == "lunyu:1.3"
    assert table_state.load(path, TABLES) is not None  # saved again by that start


async def test_a_state_is_not_saved_when_a_write_comes_during_the_reads(index, monkeypatch):
    stamps = iter(["a" * 64, "b" * 64])
    monkeypatch.setattr(table_state, "stamp", lambda folder, tables: next(stamps))
    PassageStore(index).save_state()
    assert saved(index) == []


async def test_a_retriever_started_before_another_store_wrote_reads_the_write_at_its_next_start(index):
    store = PassageStore(index)
    retriever = HybridRetriever(store, HashingEmbedder())
    await retriever.start()  # LanceDB opened at this version (no state yet)
    more = [*DOCS, passage("lunyu:1.2", "其为人也孝弟，而好犯上者，鲜矣。不好犯上，而好作乱者，未之有也。")]
    build_index(PassageStore(index), HashingEmbedder(), more, sentences=True)  # the build, through its own store
    await retriever.start()
    assert retriever.size == store.count() == 4 and "lunyu:1.2" in store.sentences.hashes()
    again = PassageStore(index)
    assert again.load_state() and again.count() == 4 and len(again.hashes()) == 4  # the state saved is of 4


def test_a_state_saved_by_a_store_opened_before_a_write_holds_the_write(index):
    store = PassageStore(index)
    assert store.count() == 3  # opened at this version
    build_index(PassageStore(index), HashingEmbedder(), [*DOCS, passage("lunyu:1.2", "其为人也孝弟。")])
    store.save_state()
    assert store.count() == 3  # the store serves the version it opened, as its retriever's snapshot
    again = PassageStore(index)
    assert again.load_state() and again.count() == 4 and "lunyu:1.2" in again.hashes()


def test_a_write_killed_before_its_commit_changes_the_stamp(index):
    """Lance commits by writing the version's manifest last: a write killed before it leaves data files only."""
    PassageStore(index).save_state()
    assert PassageStore(index).load_state()
    (index / "passages.lance" / "data" / "killed-before-commit.lance").write_bytes(b"")
    assert not PassageStore(index).load_state()  # LanceDB is read (it ignores the uncommitted file)
