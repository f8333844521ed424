"""What readers type for a passage (core/retrieval/asks.py): the loader and its errors, and that the
gloss route hands them to its vectors (tests/test_retrieval_gloss_vectors.py searches them)."""

from __future__ import annotations

import json

import pytest
from structlog.testing import capture_logs

from core.retrieval.asks import ASK_DIR, AskError, load_asks
from core.retrieval.glosses import GlossIndex
from core.retrieval.snapshot import PassageTable
from tests.test_retrieval_gloss import DOCS, GLOSSES, write

ASKS = [
    {"id": "lunyu:1.4", "zh": ["曾子一天检讨自己好几回", "帮人做事有没有尽全力"]},
    {"id": "lunyu:2.7", "zh": ["光让爹妈吃饱不算孝顺", "养父母和养宠物有啥不同"]},
]


def test_loader_reads_each_passages_asks_and_a_missing_folder_is_none(tmp_path):
    folder = write(tmp_path / "a", [ASKS[0], "", ASKS[1]])
    asks = load_asks(folder)
    assert asks == {"lunyu:1.4": tuple(ASKS[0]["zh"]), "lunyu:2.7": tuple(ASKS[1]["zh"])}
    assert load_asks(tmp_path / "missing") == {}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "lunyu:1.1", "zh": ["x"]', "not JSON"),
        ('{"id": "lunyu:1.1", "zh": "x"}', "expected"),
        ('{"zh": ["x"]}', "expected"),
        ('{"id": "lunyu:1.1", "zh": []}', "asks of"),
        ('{"id": "lunyu:1.1", "zh": [""]}', "asks of"),
        (json.dumps({"id": "lunyu:1.1", "zh": ["长" * 25]}, ensure_ascii=False), "asks of"),
        ('{"id": "lunyu:1.1", "zh": ["a", "b", "c", "d", "e", "f", "g"]}', "asks of"),
    ],
)
def test_loader_names_file_and_line_of_a_bad_row(tmp_path, line, message):
    folder = write(tmp_path / "a", [ASKS[0], line])
    with pytest.raises(AskError, match=rf"a.g1\.jsonl:2: .*{message}"):
        load_asks(folder)


def test_an_id_given_twice_is_an_error(tmp_path):
    folder = write(tmp_path / "a", [ASKS[0]])
    write(folder, [ASKS[0]], name="g2.jsonl")
    with pytest.raises(AskError, match="lunyu:1.4 has asks twice"):
        load_asks(folder)


def test_the_gloss_route_reads_the_asks_and_hands_them_to_its_vectors(tmp_path):
    folder = write(tmp_path / "g", GLOSSES)
    write(folder / ASK_DIR, ASKS)
    handed = []
    index = GlossIndex.load(PassageTable.from_passages(DOCS), folder, vectors=lambda *rows: handed.append(rows[3]))
    assert handed == []  # the asks are read with the vectors, when a query first runs the route
    index.vectors  # noqa: B018
    assert handed == [{row["id"]: tuple(row["zh"]) for row in ASKS}]
    plain = GlossIndex.load(PassageTable.from_passages(DOCS), write(tmp_path / "plain", GLOSSES))
    query = "让爹妈吃饱了就行吗"  # words of an ask, of no gloss: the BM25 documents stay the glosses
    assert index.search(query, 5) == plain.search(query, 5) == []


def test_a_damaged_asks_file_is_logged_and_the_route_serves_without_them(tmp_path):
    folder = write(tmp_path / "g", GLOSSES)
    write(folder / ASK_DIR, ['{"id": "lunyu:1.4", "zh": "not a list"}'])
    handed = []
    index = GlossIndex.load(PassageTable.from_passages(DOCS), folder, vectors=lambda *rows: handed.append(rows[3]))
    with capture_logs() as logs:
        index.vectors  # noqa: B018
    assert handed == [{}]
    assert [e["event"] for e in logs] == ["asks_unreadable"] and "g1.jsonl:1" in logs[0]["reason"]
    assert index.search("Was he loyal to friends?", 5)  # the route still answers


def test_every_passage_of_the_five_books_has_asks(corpus_dir):
    from core.books import load_library
    from core.retrieval.glosses import GLOSS_DIR

    asks = load_asks(GLOSS_DIR / ASK_DIR)
    assert set(asks) == {p.id for p in load_library(corpus_dir).passages}
    assert all(len(items) >= 2 for items in asks.values())
