"""Citations: numbering passages, invented numbers dropped, renumbering, streamed = final text."""

from __future__ import annotations

import pytest

from core.citations import CitationBook
from core.events import Citation
from core.types import Passage

P1 = {"id": "lunyu:3.22", "ref": "《论语·八佾》第22章", "text": "子曰：管仲之器小哉！"}
P2 = {"id": "lunyu:14.16", "ref": "《论语·宪问》第16章", "text": "桓公九合诸侯，不以兵车，管仲之力也。"}
P3 = {"id": "lunyu:14.17", "ref": "《论语·宪问》第17章", "text": "微管仲，吾其被发左衽矣。"}


def book_with(*passages) -> CitationBook:
    book = CitationBook()
    for p in passages:
        book.number(p)
    return book


def test_numbers_in_order_of_first_appearance_and_stable_per_id():
    book = CitationBook()
    assert [book.number(p) for p in (P2, P1, P2, P3)] == [1, 2, 1, 3]
    assert book.passage(1) == Passage(id=P2["id"], ref=P2["ref"], corpus="", title="", text=P2["text"])
    assert len(book) == 3


def test_observation_shows_numbers_and_refs_not_ids():
    book = book_with(P3)
    text = book.render({"query": "管仲", "passages": [P1, P3]})
    assert "[2] 《论语·八佾》第22章\n子曰：管仲之器小哉！" in text
    assert "[1] 《论语·宪问》第17章\n微管仲" in text
    assert "lunyu:" not in text
    assert '"query": "管仲"' in text
    assert book.render("plain text") == "plain text"
    assert book.render({"answer": 42}) == '{"answer": 42}'


def test_invented_numbers_dropped_and_used_ones_renumbered():
    book = book_with(P1, P2, P3)
    text, cites = book.finalize("管仲器小[3]，然其功大[1]。又见[9]。再言[3]。")
    assert text == "管仲器小[1]，然其功大[2]。又见。再言[1]。"
    assert cites == (
        Citation(1, P3["id"], P3["ref"], P3["text"]),
        Citation(2, P1["id"], P1["ref"], P1["text"]),
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("仁也【2】。", "仁也[1]。"),
        ("仁也[2][1]。", "仁也[1][2]。"),
        ("仁也[2,1]。", "仁也[1][2]。"),
        ("仁也[2， 1]。", "仁也[1][2]。"),
        ("仁也[2、9、1]。", "仁也[1][2]。"),
        ("仁也[1-3]。", "仁也[1][2][3]。"),
        ("仁也[2,2]。", "仁也[1]。"),
        ("Benevolence [7].", "Benevolence."),
        ("Benevolence [0] is love.", "Benevolence is love."),
        ("In [2024] nothing.", "In [2024] nothing."),
        ("a [b] c [ 1 ]", "a [b] c [1]"),
        ("list: [", "list: ["),
        ("[1", "[1"),
        ("", ""),
    ],
)
def test_marker_forms(raw, expected):
    assert book_with(P1, P2, P3).finalize(raw)[0] == expected


def test_no_passages_means_no_markers_survive():
    text, cites = CitationBook().finalize("子曰[1]：学而时习之[2]。")
    assert text == "子曰：学而时习之。"
    assert cites == ()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 100])
def test_streamed_text_equals_final_text(size):
    raw = "管仲 [3] 之器小哉【9】！其功[1, 3]大矣 [ 2-3 ] 。又见 [8] 与 [a]。 "
    book = book_with(P1, P2, P3)
    stream = book.stream()
    streamed = "".join(stream.feed(raw[i : i + size]) for i in range(0, len(raw), size)) + stream.flush()
    final, cites = book_with(P1, P2, P3).finalize(raw)
    assert streamed == final
    assert stream.citations() == cites
    assert "9" not in streamed and "8" not in streamed
    assert final == "管仲 [1] 之器小哉！其功[2][1]大矣 [3][1] 。又见 与 [a]。 "


def test_stream_never_shows_invented_marker_in_any_delta():
    book = book_with(P1)
    stream = book.stream()
    shown = [stream.feed(piece) for piece in ["子曰", " [", "1", "2", "]", "。"]]
    assert shown == ["子曰", "", "", "", "", "。"]
    assert stream.flush() == ""
