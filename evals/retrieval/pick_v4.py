"""Picks the passages of the v4 held-out queries (issue 24, round 2), seeded, before any query was written.

    FUZI_CORPUS_DIR=… python evals/retrieval/pick_v4.py

Pool: Analects paragraphs of 12-90 characters and Book of Songs poems (a stanza is quoted for
them) that no hand-written query of any earlier set names as gold (so the passages are new to every
method chosen so far). Each class gets its own 20 passages, disjoint, from `random.Random(SEED)`;
Analects 15 : Songs 5 for the Chinese classes, Analects 16 : Songs 4 for English. The queries were then
written by hand for exactly these passages, in this order (`written_v4.tsv`, and `QUESTIONS_V4`
in `evals/retrieval_en/make.py`), before any method of that round ran on them.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.retrieval.documents import load_corpus, sort_key  # noqa: E402

SEED = 20261201
CLASSES = (("paraphrase_v4", 15, 5), ("modern_v4", 15, 5), ("translation_v4", 15, 5), ("people_v4", 16, 4))


def seen_gold(own: Callable[[str], bool] = lambda cls: cls.endswith("_v4")) -> set[str]:
    """Gold ids of every hand-written query in the existing sets (generated classes and the picking
    round's `own` classes excluded)."""
    seen: set[str] = set()
    for path in (
        "retrieval/dev.jsonl",
        "retrieval/heldout.jsonl",
        "retrieval_en/dev.jsonl",
        "retrieval_en/heldout.jsonl",
    ):
        for line in (ROOT / "evals" / path).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if not row.get("class", "").startswith("gen_") and not own(row.get("class", "")):
                seen.update(row["gold"])
    return seen


def pick(passages) -> dict[str, list]:
    seen = seen_gold()
    lunyu = [p for p in passages if p.corpus == "lunyu" and 12 <= len(p.text) <= 90 and p.id not in seen]
    songs = [p for p in passages if p.corpus == "shijing" and p.id not in seen]
    rng = random.Random(SEED)
    rng.shuffle(lunyu)
    rng.shuffle(songs)
    out: dict[str, list] = {}
    for cls, n_lunyu, n_songs in CLASSES:
        out[cls] = sorted(lunyu[:n_lunyu], key=lambda p: sort_key(p.id)) + sorted(
            songs[:n_songs], key=lambda p: sort_key(p.id)
        )
        lunyu, songs = lunyu[n_lunyu:], songs[n_songs:]
    return out


def main() -> None:
    passages = load_corpus(Path(os.environ.get("FUZI_CORPUS_DIR", str(ROOT / "var/corpus"))))
    for cls, chosen in pick(passages).items():
        print(f"## {cls}")
        for p in chosen:
            text = " ".join(p.text.split())
            print(f"{p.id}\t{p.title}\t{text if p.corpus == 'lunyu' else text[:120]}")


if __name__ == "__main__":
    main()
