"""The books as entries: the five files, the Mencius chapter table, 朱熹's 章句 places, variant
characters, the Songs quotations, and a corpus folder that holds only some books."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.books import BOOKS, book, books_in, load_library
from core.books.songs import link_songs
from core.books.tables import mengzi_chapters, zhuxi_places
from core.language.text import squash, to_simplified
from core.retrieval.glosses import load_glosses
from data.corpus import MANIFEST, CorpusFetchError, fetch, verify_present
from tests.helpers_corpus import corpus_dir

STANDARD = {1: 7, 2: 16, 3: 9, 4: 14, 5: 5, 6: 10, 7: 28, 8: 33, 9: 9, 10: 9, 11: 20, 12: 16, 13: 46, 14: 38}


@pytest.fixture(scope="module")
def library():
    return load_library(corpus_dir())


@pytest.fixture(scope="module")
def by_id(library):
    return {p.id: p for p in library.passages}


def test_every_book_is_one_entry_that_the_manifest_and_the_selections_follow(library):
    assert [b.id for b in BOOKS] == ["lunyu", "shijing", "mengzi", "daxue", "zhongyong"]
    assert set(MANIFEST) == {b.file for b in BOOKS} and library.present == tuple(b.id for b in BOOKS)
    assert books_in("sishu") == ("lunyu", "mengzi", "daxue", "zhongyong") and books_in("mengzi") == ("mengzi",)
    with pytest.raises(ValueError, match="sishu"):
        books_in("xunzi")


def test_the_mencius_table_gives_the_standard_division_and_matches_the_file():
    """朱熹《孟子集注》's 260 chapters; every row's opening is where the file has it."""
    table = mengzi_chapters()
    assert {b: len(rows) for b, rows in table.items()} == STANDARD and sum(STANDARD.values()) == 260
    books = json.loads((corpus_dir() / "mengzi.json").read_text("utf-8"))
    for b, rows in table.items():
        paragraphs = books[b - 1]["paragraphs"]
        assert [r.chapter for r in rows] == list(range(1, len(rows) + 1))
        assert [i for r in rows for i in range(r.first, r.last + 1)] == list(range(1, len(paragraphs) + 1))
        for r in rows:
            assert paragraphs[r.first - 1].startswith(r.opening), (b, r)


@pytest.mark.parametrize(
    ("pid", "words"),
    [
        ("mengzi:1.1", "何必曰利"),
        ("mengzi:1.3", "五十步笑百步"),
        ("mengzi:1.7", "缘木求鱼"),
        ("mengzi:3.2", "浩然之气"),
        ("mengzi:3.2", "揠苗"),
        ("mengzi:3.6", "恻隐之心"),
        ("mengzi:6.2", "此之谓大丈夫"),
        ("mengzi:11.10", "舍生而取义"),
        ("mengzi:12.15", "生于忧患"),
        ("mengzi:14.14", "民为贵"),
    ],
)
def test_well_known_chapters_have_their_standard_numbers(by_id, pid, words):
    assert words in by_id[pid].text


def test_refs_in_the_standard_division_and_in_zhu_xis_zhangju(by_id):
    assert by_id["mengzi:1.3"].ref == "《孟子·梁惠王上》第3章" and by_id["mengzi:14.14"].ref == "《孟子·尽心下》第14章"
    assert by_id["daxue:1"].ref == "《大学》第1段（章句·经）" and by_id["daxue:4"].ref == "《大学》第4段（章句·传三）"
    assert by_id["zhongyong:1"].ref == "《中庸》第1段（章句·第1章）"
    assert by_id["zhongyong:15"].ref == "《中庸》第15段（章句·第14—15章）"
    assert by_id["daxue:1"].text.startswith("大学之道，在明明德") and "“" in by_id["mengzi:1.1"].text  # Simplified, “”


def test_every_zhangju_chapter_has_a_paragraph():
    places = {p for n, p in zhuxi_places("zhongyong").items()}
    chapters = {int(c) for p in places for c in p.strip("第章").split("—")}
    assert len(zhuxi_places("zhongyong")) == 39 and chapters == set(range(1, 34))
    daxue = zhuxi_places("daxue")
    assert len(daxue) == 16 and daxue[1] == "经"
    named = {part for p in daxue.values() for part in p.split("、")}
    assert {"经"} | {f"传{n}" for n in "一二三四五六七八九十"} <= named


def test_every_passage_of_every_book_has_a_gloss(library):
    glosses = load_glosses()
    missing = [p.id for p in library.passages if p.id not in glosses]
    assert missing == [] and set(glosses) == {p.id for p in library.passages}


def test_variant_characters_fold_in_verbatim_comparisons(by_id):
    assert squash("昏昏") == squash("昬昬") and squash("不亦悦乎") == squash("不亦說乎")
    dim = next(p for p in by_id.values() if p.corpus == "mengzi" and "昬昬" in p.text)
    assert squash("今以其昏昏，使人昭昭") in squash(dim.text)


def test_songs_quotations_link_to_the_poem_they_quote(by_id):
    lingtai = next(p.id for p in by_id.values() if p.corpus == "shijing" and p.title == "灵台")
    assert lingtai in by_id["mengzi:1.2"].meta["songs"]
    assert "mengzi:1.2" in by_id[lingtai].meta["quoted_in"]
    qi_ao = next(p.id for p in by_id.values() if p.corpus == "shijing" and p.title == "淇奥")
    assert by_id["daxue:4"].meta["songs"][0] == qi_ao
    # a quotation of no poem in the book stays unlinked
    assert link_songs([*[p for p in by_id.values() if p.corpus == "shijing"][:3], by_id["mengzi:1.2"]]) == {}


def _partial(tmp_path: Path, names: tuple[str, ...]) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in names:
        shutil.copy(corpus_dir() / name, folder / name)
    return folder


def test_a_folder_with_only_the_two_old_books_serves_them_and_names_the_rest(tmp_path):
    folder = _partial(tmp_path, ("lunyu.json", "shijing.json"))
    library = load_library(folder)
    assert library.present == ("lunyu", "shijing") and library.missing == ("mengzi", "daxue", "zhongyong")
    assert len(library.passages) == 817
    assert "《孟子》、《大学》、《中庸》" in library.missing_line() and "\n" not in library.missing_line()
    report = fetch(tmp_path / "home", folder)
    assert report.source == "corpus-dir" and report.missing == ("mengzi.json", "daxue.json", "zhongyong.json")


def test_a_home_folder_missing_books_is_completed_or_served_as_it_is_offline(tmp_path):
    home = _partial(tmp_path, ("lunyu.json", "shijing.json"))
    report = fetch(home, None, npm="no-such-npm")
    assert report.source == "partial" and set(report.files) == {"lunyu.json", "shijing.json"}
    assert report.missing == ("mengzi.json", "daxue.json", "zhongyong.json")


def test_a_changed_new_book_is_refused(tmp_path):
    folder = _partial(tmp_path, ("lunyu.json", "shijing.json"))
    (folder / "mengzi.json").write_bytes((corpus_dir() / "mengzi.json").read_bytes() + b" ")
    with pytest.raises(CorpusFetchError, match="mengzi.json has sha256"):
        verify_present(folder)
    with pytest.raises(CorpusFetchError, match="sha256"):
        fetch(folder, None, npm="no-such-npm")


def test_the_traditional_files_are_stored_in_simplified(by_id):
    raw = json.loads((corpus_dir() / "zhongyong.json").read_text("utf-8"))["paragraphs"][0]
    assert to_simplified(raw) == by_id["zhongyong:1"].text and "學" not in by_id["daxue:1"].text
    assert book("mengzi").traditional and not book("lunyu").traditional
