"""The fresh dev sets (evals/fresh/queries.py) → evals/fresh/dev.jsonl.

A locator is a passage id or a substring of the passage text; every passage of the five books that
contains the substring is gold, in the order found (the writer's own build, kept as it resolved).
Classes: `short_paraphrase`, `english`, `full_translation`, `topic`. There is no held-out side: the
sets are for choosing methods; the held-out sets of the other tasks confirm them. Run:
FUZI_CORPUS_DIR=… python -m evals.fresh.build
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.books import load_library
from evals.fresh.queries import EN, FT, SP, TP

HERE = Path(__file__).resolve().parent
CLASSES = (("short_paraphrase", SP), ("english", EN), ("full_translation", FT), ("topic", TP))


def resolve(locators: list[str], texts: dict[str, str]) -> list[str]:
    """Gold ids of `locators`, each once; SystemExit for a locator that finds no passage."""
    out: list[str] = []
    for locator in locators:
        found = [locator] if locator in texts else [pid for pid, text in texts.items() if locator in text]
        if not found:
            raise SystemExit(f"locator {locator!r} is in no passage")
        out += [pid for pid in found if pid not in out]
    return out


def main() -> None:
    library = load_library(Path(os.environ.get("FUZI_CORPUS_DIR", "var/corpus")))
    texts = {p.id: p.text for p in library.passages}
    rows = [
        json.dumps({"query": query, "gold": resolve(locators, texts), "class": cls}, ensure_ascii=False)
        for cls, entries in CLASSES
        for query, locators in entries
    ]
    (HERE / "dev.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"dev: {len(rows)} queries")


if __name__ == "__main__":
    main()
