"""The recitation answer checker against the committed table tests/data/recite_answers.tsv (≥ 200
cases): Simplified and Traditional, punctuation and spacing, the whole line, readers' variant
characters accepted; a wrong, missing, extra or swapped character rejected; empty and huge answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.recite.check import check
from core.recite.cloze import BLANK, lines, make_cloze
from core.recite.variants import GROUPS, VARIANTS
from core.retrieval.documents import load_corpus
from tests.helpers_corpus import corpus_dir

TABLE = Path(__file__).with_name("data") / "recite_answers.tsv"


def _cases() -> list[tuple[str, str, str, str, str]]:
    rows = []
    for raw in TABLE.read_text("utf-8").splitlines():
        if raw.startswith("#") or not raw.strip():
            continue
        phrase, line, answer, expected, note = raw.split("\t")
        rows.append((phrase, line, answer.replace("\\n", "\n"), expected, note))
    return rows


CASES = _cases()


def test_the_table_is_large_and_covers_every_outcome():
    assert len(CASES) >= 200
    expected = {c[3] for c in CASES}
    assert expected == {"right", "wrong", "empty", "too_long"}
    assert sum(c[3] == "wrong" for c in CASES) >= 60


@pytest.mark.parametrize(("phrase", "line", "answer", "expected", "note"), CASES, ids=[c[4] for c in CASES])
def test_answer(phrase, line, answer, expected, note):
    assert check(answer, phrase, line).outcome == expected, note


def test_each_variant_group_is_disjoint():
    seen: set[str] = set()
    for group in GROUPS:
        assert not seen & set(group), group
        seen |= set(group)
    assert VARIANTS["悦"] == VARIANTS["说"] == VARIANTS["説"]
    assert VARIANTS.get("己", "己") != VARIANTS.get("已", "已") != VARIANTS.get("以", "以")  # never joined


def test_every_passage_gives_a_cloze_whose_blank_is_in_its_line():
    for passage in load_corpus(corpus_dir()):
        cloze = make_cloze(passage.text, passage.id)
        assert cloze is not None, passage.id
        assert cloze.line in lines(passage.text) and cloze.phrase in cloze.line
        assert cloze.shown.count(BLANK) == len(cloze.phrase) and not cloze.phrase.endswith("曰")
        assert check(cloze.phrase, cloze.phrase, cloze.line).right


def test_a_card_shows_another_line_on_another_review():
    text = load_corpus(corpus_dir())[0].text  # 学而时习之 … three lines
    shown = {make_cloze(text, f"1:{n}").shown for n in range(12)}  # type: ignore[union-attr]
    assert len(shown) >= 3
