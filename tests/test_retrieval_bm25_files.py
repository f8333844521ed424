"""The gloss route's BM25 collections saved and read back (core/retrieval/bm25_files.py): the same
scores as a built index, nothing indexed by a process that finds them (`fuzi index` saves them), a
changed gloss rebuilt, and an unwritable or damaged folder costing only the build."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from core.retrieval import bm25_files
from core.retrieval import glosses as glosses_module
from core.retrieval.glosses import GlossIndex
from core.retrieval.indexer import build_index
from core.retrieval.keyword import SavedBM25
from core.retrieval.snapshot import PassageTable
from core.retrieval.store import PassageStore
from tests.fakes.retrieval_fixtures import HashingEmbedder, open_retriever
from tests.test_retrieval_gloss import DOCS, GLOSSES, write

QUERIES = (
    "Did Zengzi check every day whether he kept his word to friends?",
    "What is wrong with only feeding your parents?",
    "光是养活父母算不算孝呢？",
    "Which poem is about a lover who swears to share a grave?",
)


def results(index: GlossIndex) -> list[list[tuple[str, float]]]:
    return [index.search(q, 5) for q in QUERIES]


def no_build(*args, **kwargs):
    raise AssertionError("indexed although the saved collection was there")


def test_saved_collections_score_as_built_ones_and_are_not_rebuilt(tmp_path, monkeypatch):
    table, glosses = PassageTable.from_passages(DOCS), write(tmp_path / "g", GLOSSES)
    built = results(GlossIndex.load(table, glosses))
    first = GlossIndex.load(table, glosses, saved=tmp_path / "saved")
    assert results(first) == built
    assert sorted(p.name.split(".")[0] for p in (tmp_path / "saved").iterdir()) == ["glosses-en", "glosses-zh"]

    monkeypatch.setattr(bm25_files, "bm25_index", no_build)
    again = GlossIndex.load(table, glosses, saved=tmp_path / "saved")
    assert results(again) == built  # the same scores, bit for bit
    assert isinstance(again._glosses._english._bm25, SavedBM25)


def test_an_edited_gloss_is_indexed_again_and_the_old_files_go(tmp_path):
    table = PassageTable.from_passages(DOCS)
    GlossIndex.load(table, write(tmp_path / "g", GLOSSES), saved=tmp_path / "saved").prepare()
    before = sorted(p.name for p in (tmp_path / "saved").iterdir())

    edited = [dict(GLOSSES[0], en="Zengzi asks himself whether he was faithful to the people he served.")]
    index = GlossIndex.load(table, write(tmp_path / "g2", edited + GLOSSES[1:]), saved=tmp_path / "saved")
    index.prepare()
    assert index.search("Was Zengzi faithful to the people he served?", 5)[0][0] == "lunyu:1.4"
    after = sorted(p.name for p in (tmp_path / "saved").iterdir())
    assert after[0] != before[0] and after[1] == before[1]  # the English collection changed, the Chinese not
    assert len(after) == 2


def test_a_query_makes_only_its_own_languages_collection(tmp_path):
    table, glosses = PassageTable.from_passages(DOCS), write(tmp_path / "g", GLOSSES)
    GlossIndex.load(table, glosses, saved=tmp_path / "saved").search(QUERIES[2], 5)  # Chinese
    assert [p.name.split(".")[0] for p in (tmp_path / "saved").iterdir()] == ["glosses-zh"]
    GlossIndex.load(table, glosses, saved=tmp_path / "saved").search(QUERIES[0], 5)  # English
    assert sorted(p.name.split(".")[0] for p in (tmp_path / "saved").iterdir()) == ["glosses-en", "glosses-zh"]


def test_an_unwritable_folder_costs_the_build_not_the_answer(tmp_path):
    table, glosses = PassageTable.from_passages(DOCS), write(tmp_path / "g", GLOSSES)
    (tmp_path / "file").write_text("not a folder")
    with capture_logs() as logs:
        index = GlossIndex.load(table, glosses, saved=tmp_path / "file" / "saved")
        assert results(index) == results(GlossIndex.load(table, glosses))
    assert {e["event"] for e in logs} == {"bm25_file_not_saved"}


@pytest.mark.parametrize("damage", ["remove", "truncate"])
def test_a_damaged_collection_is_built_again(tmp_path, damage):
    table, glosses = PassageTable.from_passages(DOCS), write(tmp_path / "g", GLOSSES)
    built = results(GlossIndex.load(table, glosses))
    results(GlossIndex.load(table, glosses, saved=tmp_path / "saved"))
    english = next((tmp_path / "saved").glob("glosses-en.*"))
    vocab = english / "vocab.index.json"
    vocab.unlink() if damage == "remove" else vocab.write_text("{")
    with capture_logs() as logs:
        assert results(GlossIndex.load(table, glosses, saved=tmp_path / "saved")) == built
    assert [e["event"] for e in logs] == ["bm25_file_unreadable"]
    assert isinstance(GlossIndex.load(table, glosses, saved=tmp_path / "saved")._glosses._english._bm25, SavedBM25)


async def test_the_index_build_saves_them_for_a_process_first_question(tmp_path, monkeypatch):
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g", GLOSSES))
    store = PassageStore(tmp_path / "db")
    build_index(store, HashingEmbedder(), DOCS, glosses=True)
    assert sorted(p.name.split(".")[0] for p in store.gloss_bm25_dir().iterdir()) == ["glosses-en", "glosses-zh"]

    monkeypatch.setattr(bm25_files, "bm25_index", no_build)
    retriever = await open_retriever(tmp_path / "db")
    response = await retriever.search("What did Confucius say about respecting parents, not just feeding them?", k=4)
    assert response.results[0].id == "lunyu:2.7" and "gloss" in response.results[0].routes
