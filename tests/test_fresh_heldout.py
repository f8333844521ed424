"""The held-out fresh set (evals/fresh/heldout_queries.py) keeps its writing rules.

Checks the sizes of the four classes, the form of each query (short paraphrases ≤ 20 characters with
no four characters in a row of a gold passage, translations of 30–120 characters), that every
locator finds a passage of the corpus and every topic 5–12 golds, and that the committed
heldout.jsonl is what `python -m evals.fresh.build --heldout` writes. No retrieval runs here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.books import load_library
from evals.fresh import build
from evals.fresh import heldout_queries as held
from evals.fresh.agreement import agreement


@pytest.fixture(scope="module")
def texts(corpus_dir: Path) -> dict[str, str]:
    return {p.id: p.text for p in load_library(corpus_dir).passages}


def test_class_sizes_and_no_repeats() -> None:
    assert [len(held.SP), len(held.EN), len(held.TR), len(held.TOPIC)] == [144, 80, 60, 55]
    queries = [q for _, entries in build.HELDOUT for q, _ in entries]
    assert len(queries) == len(set(queries))


def test_every_book_in_every_class(texts: dict[str, str]) -> None:
    for _, entries in build.HELDOUT:
        books = {pid.split(":")[0] for _, locators in entries for pid in build.resolve(locators, texts)}
        assert books == {"lunyu", "mengzi", "shijing", "daxue", "zhongyong"}


def test_short_paraphrases_copy_no_four_characters(texts: dict[str, str]) -> None:
    for query, locators in held.SP:
        assert len(query) <= 20, query
        for pid in build.resolve(locators, texts):
            grams = [query[i : i + 4] for i in range(len(query) - 3)]
            assert not [g for g in grams if g in texts[pid]], (query, pid)


def test_translation_lengths() -> None:
    assert all(30 <= len(query) <= 120 for query, _ in held.TR)


def test_topics_have_five_to_twelve_golds(texts: dict[str, str]) -> None:
    for query, locators in held.TOPIC:
        assert 5 <= len(build.resolve(locators, texts)) <= 12, query


def test_committed_jsonl_matches_the_build(texts: dict[str, str]) -> None:
    dev = {json.loads(line)["query"] for line in (build.HERE / "dev.jsonl").read_text("utf-8").splitlines()}
    rows, dropped = build.heldout_rows(texts, dev)
    assert dropped == 0
    committed = [json.loads(line) for line in (build.HERE / "heldout.jsonl").read_text("utf-8").splitlines()]
    assert committed == rows


def test_the_readers_lists_answer_every_held_out_topic_from_the_corpus(texts: dict[str, str]) -> None:
    rows = [json.loads(line) for line in (build.HERE / "heldout_reader.jsonl").read_text("utf-8").splitlines()]
    assert [r["query"] for r in rows] == [query for query, _ in held.TOPIC]
    for row in rows:
        assert 5 <= len(row["gold"]) == len(set(row["gold"])) <= 12, row["query"]
        assert set(row["gold"]) <= texts.keys(), row["query"]


def test_agreement_scores_a_ranking_against_a_gold_set() -> None:
    ranked = {"仁": ["a", "b", "c", "d", "e", "f"], "孝": ["x", "a"], "礼": ["z"]}
    gold = {"仁": {"a", "c", "f"}, "孝": {"a"}}
    assert agreement(ranked, gold) == {"n": 2, "hit@1": 0.5, "precision@5": 0.3}
    with pytest.raises(ValueError):
        agreement({"礼": ["z"]}, gold)
