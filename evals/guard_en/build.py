"""Writes evals/guard_en/dev.jsonl and evals/guard_en/heldout.jsonl: benign English messages about
the classics (quotations in the manner of the standard translations, readers' questions).
Run from the repository root: python evals/guard_en/build.py

Two rounds of material, each split by hash before any detector ran on it (held out when
sha256(salt + text) falls in the lower 40 %):
  * v6 (salt "fuzi-v24-guard:"): classics_v24_quotes.py, classics_v24_questions.py — the former
    evals/guard_v24_en_{dev,holdout}.jsonl, unchanged;
  * v7 (salt "fuzi-v7-guard:"): classics_en_v7.py (Legge-, Waley-, Lau- and Slingerland-like
    quotations; questions);
  * v9 (salt "fuzi-v9-guard:", lower 65 % held out): classics_en_v9.py (quotations, questions;
    appended after the earlier rows; a line already in them is left out);
  * v10: classics_en_v10.py, all held out (written as a fresh held-out before detector v10 changed;
    after the v9 rows; a line already in earlier material is left out).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from classics_en_v7 import LAU, LEGGE, MORE_QUESTIONS, QUESTIONS, SLINGERLAND, WALEY  # noqa: E402
from classics_en_v9 import QUESTIONS as QUESTIONS_V9  # noqa: E402
from classics_en_v9 import QUOTES as QUOTES_V9  # noqa: E402
from classics_en_v10 import QUESTIONS as QUESTIONS_V10  # noqa: E402
from classics_en_v10 import QUOTES as QUOTES_V10  # noqa: E402
from classics_v24_questions import QUESTIONS as QUESTIONS_V24  # noqa: E402
from classics_v24_quotes import QUOTES as QUOTES_V24  # noqa: E402


def held_out(text: str, salt: str) -> bool:
    digest = hashlib.sha256(f"{salt}{text}".encode()).digest()
    share = 0.65 if salt == "fuzi-v9-guard:" else 0.4
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def _row(text: str, kind: str, source: str) -> dict:
    style = "en_classics_quote" if kind == "en_quote" else "en_classics_question"
    return {
        "text": text,
        "attack": False,
        "style": style,
        "lang": "en",
        "kind": kind,
        "variant": "plain",
        "source": source,
    }


def _unseen(quotes: list[str], questions: list[str], source: str, seen: set[str]) -> list[dict]:
    """Rows of a round's quotations and questions not in `seen` (nor repeated); they join `seen`."""
    rows = []
    for kind, texts in (("en_quote", quotes), ("en_question", questions)):
        for t in texts:
            if t not in seen:
                seen.add(t)
                rows.append(_row(t, kind, source))
    return rows


def main() -> None:
    rows = [(_row(t, "en_quote", "v6"), "fuzi-v24-guard:") for t in QUOTES_V24]
    rows += [(_row(t, "en_question", "v6"), "fuzi-v24-guard:") for t in QUESTIONS_V24]
    for source, texts in (("v7_legge", LEGGE), ("v7_waley", WALEY), ("v7_lau", LAU), ("v7_slingerland", SLINGERLAND)):
        rows += [(_row(t, "en_quote", source), "fuzi-v7-guard:") for t in texts]
    rows += [(_row(t, "en_question", "v7"), "fuzi-v7-guard:") for t in QUESTIONS + MORE_QUESTIONS]
    seen = {row["text"] for row, _ in rows}
    rows += [(row, "fuzi-v9-guard:") for row in _unseen(QUOTES_V9, QUESTIONS_V9, "v9", seen)]
    dev = [row for row, salt in rows if not held_out(row["text"], salt)]
    heldout = [row for row, salt in rows if held_out(row["text"], salt)]
    heldout += _unseen(QUOTES_V10, QUESTIONS_V10, "v10", seen)  # v10 was written as held-out only
    for name, part in (("dev.jsonl", dev), ("heldout.jsonl", heldout)):
        with open(HERE / name, "w", encoding="utf-8") as f:
            for row in part:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{name}: {len(part)} benign lines")


if __name__ == "__main__":
    main()
