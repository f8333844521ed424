"""Writes evals/guard_v24_en_dev.jsonl and evals/guard_v24_en_holdout.jsonl (benign English
classical quotations and questions).

Split: a line is held out when sha256("fuzi-v24-guard:" + text) falls in the lower 40 %. The
held-out file was only ever run as a whole, after each change was committed: no rule or threshold
was chosen looking at it.
Run: python evals/src_v24/build_guard_v24.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from en_classics_questions import QUESTIONS  # noqa: E402
from en_classics_quotes import QUOTES  # noqa: E402


def held_out(text: str) -> bool:
    digest = hashlib.sha256(f"fuzi-v24-guard:{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < 0.4


def main() -> None:
    rows = [(t, "en_classics_quote") for t in QUOTES] + [(t, "en_classics_question") for t in QUESTIONS]
    dev, hold = [], []
    for text, style in rows:
        row = {"text": text, "attack": False, "style": style, "lang": "en", "variant": "plain"}
        (hold if held_out(text) else dev).append(row)
    out = HERE.parent
    for name, part in (("guard_v24_en_dev.jsonl", dev), ("guard_v24_en_holdout.jsonl", hold)):
        with open(out / name, "w", encoding="utf-8") as f:
            for row in part:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(name, len(part))


if __name__ == "__main__":
    main()
