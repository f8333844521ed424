"""The fresh sets → evals/fresh/dev.jsonl (queries.py), with --heldout evals/fresh/heldout.jsonl, with
--blind evals/fresh/blind.jsonl.

A locator is a passage id or a substring of the passage text; every passage of the five books that
contains the substring is gold, in the order found (the writer's own build, kept as it resolved).
Dev classes: `short_paraphrase`, `english`, `full_translation`, `topic`; the dev sets are for choosing
methods. The held-out sets (heldout_queries.py, written blind by another writer) confirm them: classes
`fresh_heldout_short_paraphrase`, `fresh_heldout_english`, `fresh_heldout_full_translation`,
`fresh_heldout_topic`; a held-out topic must resolve to 5–12 golds, and a held-out query whose text is
identical to a dev query is dropped. The blind set (blind_queries.py, a fourth writer who saw only the
corpus) is a second dev set used only as a whole, to check that methods chosen on dev generalise:
classes `blind_short_paraphrase` and `blind_topic`, the same 5–12 rule for topics, and a blind query
identical to any dev or held-out query dropped. Run:
FUZI_CORPUS_DIR=… python -m evals.fresh.build [--heldout | --blind]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from core.books import load_library
from evals.fresh import blind_queries as blind
from evals.fresh import heldout_queries as held
from evals.fresh.queries import EN, FT, SP, TP

HERE = Path(__file__).resolve().parent
CLASSES = (("short_paraphrase", SP), ("english", EN), ("full_translation", FT), ("topic", TP))
HELDOUT = (
    ("fresh_heldout_short_paraphrase", held.SP),
    ("fresh_heldout_english", held.EN),
    ("fresh_heldout_full_translation", held.TR),
    ("fresh_heldout_topic", held.TOPIC),
)
BLIND = (("blind_short_paraphrase", blind.SP), ("blind_topic", blind.TP))
TOPIC_GOLDS = (5, 12)


def resolve(locators: list[str], texts: dict[str, str]) -> list[str]:
    """Gold ids of `locators`, each once; SystemExit for a locator that finds no passage."""
    out: list[str] = []
    for locator in locators:
        found = [locator] if locator in texts else [pid for pid, text in texts.items() if locator in text]
        if not found:
            raise SystemExit(f"locator {locator!r} is in no passage")
        out += [pid for pid in found if pid not in out]
    return out


def heldout_rows(
    texts: dict[str, str], dev_queries: set[str], sets: tuple[tuple[str, list[tuple[str, list[str]]]], ...] = HELDOUT
) -> tuple[list[dict[str, object]], int]:
    """Rows of `sets` (queries in `dev_queries` dropped) and how many were dropped; SystemExit on a bad topic."""
    rows: list[dict[str, object]] = []
    dropped = 0
    for cls, entries in sets:
        for query, locators in entries:
            gold = resolve(locators, texts)
            if cls.endswith("topic") and not TOPIC_GOLDS[0] <= len(gold) <= TOPIC_GOLDS[1]:
                raise SystemExit(f"topic {query!r} has {len(gold)} golds, not {TOPIC_GOLDS[0]}–{TOPIC_GOLDS[1]}")
            if query in dev_queries:
                dropped += 1
                continue
            rows.append({"query": query, "gold": gold, "class": cls})
    return rows, dropped


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m evals.fresh.build")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--heldout", action="store_true", help="write heldout.jsonl instead of dev.jsonl")
    which.add_argument("--blind", action="store_true", help="write blind.jsonl instead of dev.jsonl")
    args = parser.parse_args(argv)
    library = load_library(Path(os.environ.get("FUZI_CORPUS_DIR", "var/corpus")))
    texts = {p.id: p.text for p in library.passages}
    if args.blind:
        # Checked against the query lists themselves, never shown: the blind writer saw neither.
        others = {query for _, entries in CLASSES + HELDOUT for query, _ in entries}
        rows, dropped = heldout_rows(texts, others, BLIND)
        lines = [json.dumps(row, ensure_ascii=False) for row in rows]
        (HERE / "blind.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"blind: {len(rows)} queries ({dropped} identical to a dev or held-out query dropped)")
        return
    if args.heldout:
        dev = HERE / "dev.jsonl"
        if not dev.exists():
            raise SystemExit(f"{dev} is missing: build the dev set first (duplicates are checked against it)")
        dev_queries = {json.loads(line)["query"] for line in dev.read_text(encoding="utf-8").splitlines() if line}
        rows, dropped = heldout_rows(texts, dev_queries)
        lines = [json.dumps(row, ensure_ascii=False) for row in rows]
        (HERE / "heldout.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"heldout: {len(rows)} queries ({dropped} identical to a dev query dropped)")
        return
    rows_dev = [
        json.dumps({"query": query, "gold": resolve(locators, texts), "class": cls}, ensure_ascii=False)
        for cls, entries in CLASSES
        for query, locators in entries
    ]
    (HERE / "dev.jsonl").write_text("\n".join(rows_dev) + "\n", encoding="utf-8")
    print(f"dev: {len(rows_dev)} queries")


if __name__ == "__main__":
    main()
