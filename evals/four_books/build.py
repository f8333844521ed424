"""Queries about 孟子, 大学 and 中庸 → evals/four_books/dev.jsonl and evals/four_books/heldout.jsonl.

`queries.tsv` was written by one LLM helper session of this team that saw the corpus files only (not
the glosses, the chapter table or the retriever); not independent: say so whenever a figure on it is
quoted. Classes: `quote` (lines as readers type them: Simplified or Traditional, misremembered, variant
characters), `retell` (modern-Chinese retellings), `en` (English questions), `topic` (questions on a
theme across books, several golds), `songs` (where a book quotes the Book of Songs: golds in both).
Batches went whole to one side, drawn at random before they were written.

A gold is `book:snippet`, the snippet verbatim in one paragraph of that book; it is resolved here to
the passage holding it (a 孟子 chapter, a poem, an Analects paragraph). Run:
FUZI_CORPUS_DIR=… python -m evals.four_books.build
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.language.text import squash
from core.retrieval.documents import load_corpus

HERE = Path(__file__).resolve().parent


def resolve(golds: str, passages: dict[str, list[tuple[str, str]]]) -> list[str]:
    out: list[str] = []
    for gold in golds.split(" | "):
        book, _, snippet = gold.strip().partition(":")
        key = squash(snippet)
        found = [pid for pid, text in passages[book] if key in text]
        if len(found) != 1:
            raise SystemExit(f"gold {gold!r} is in {len(found)} passages")
        out += [pid for pid in found if pid not in out]
    return out


def main() -> None:
    corpus = load_corpus(Path(os.environ.get("FUZI_CORPUS_DIR", "var/corpus")))
    passages: dict[str, list[tuple[str, str]]] = {}
    for p in corpus:
        passages.setdefault(p.corpus, []).append((p.id, squash(p.text)))
    sides: dict[str, list[str]] = {"dev": [], "heldout": []}
    for line in (HERE / "queries.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        side, cls, query, golds = line.split("\t")
        row = {"query": query, "gold": resolve(golds, passages), "class": cls}
        sides[side].append(json.dumps(row, ensure_ascii=False))
    for side, rows in sides.items():
        (HERE / f"{side}.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
        print(f"{side}: {len(rows)} queries")


if __name__ == "__main__":
    main()
