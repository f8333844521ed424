"""Checks the input screen's evaluation sets: evals/guard/{dev,heldout,heldout_fresh}.jsonl (attacks and
benign Chinese) and evals/guard_en/{dev,heldout}.jsonl (benign English about the classics).

The rows are hand-written lines and these files are their only copy: each row keeps the batch it came
from in `source`, and the batch decides its side. The rules were fixed before any detector ran on a
batch; this script checks that every row is on the side its rule names and that no batch repeats a
line of an earlier one, and prints the counts.

* guard (zh and en attacks, benign Chinese):
  - `guard_dev`, `guard_holdout_v1..v3`, `guard_holdout`, `guard_v5_dev`, `guard_v5_holdout` (the first
    sets, all tuned on since) and `roleplay_v6`: dev;
  - `v6_holdout`: held out;
  - `v7`: held out when sha256("fuzi-v7-guard:" + text) falls in the lower 40 %;
  - `v8`: sha256("fuzi-v8-guard:" + text) in the lower 60 % (attacks) or 75 % (benign);
  - `v9`: sha256("fuzi-v9-guard:" + text) in the lower 65 %;
  - `v10`: written as two lists, training and held-out, so either side.
* guard_en (benign English): `v6` by "fuzi-v24-guard:" < 40 %; `v7*` by "fuzi-v7-guard:" < 40 %;
  `v9` by "fuzi-v9-guard:" < 65 %; `v10` all held out.
* heldout_fresh (`v11`): written by someone who had seen neither the detector nor the other sets; all
  held out.

A batch's rows come after the earlier batches' rows on each side; from v8 on, a line already in the
sets was left out of a later batch (the first sets repeat some lines among them, and three benign
questions of `v6_holdout` are also in `guard_dev`).

    python -m evals.guard.check
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

EVALS = Path(__file__).resolve().parents[1]
EARLIER = (
    "guard_dev",
    "guard_holdout_v1",
    "guard_holdout_v2",
    "guard_holdout_v3",
    "guard_holdout",
    "guard_v5_dev",
    "guard_v5_holdout",
    "roleplay_v6",
)
FRESH_ONLY = ("v8", "v9", "v10")  # batches that left out every line already in the sets


def held_out(text: str, salt: str, share: float) -> bool:
    """Whether sha256(salt + text) falls in the lower `share` of its range."""
    digest = hashlib.sha256(f"{salt}{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def _zh_side(row: dict) -> bool | None:
    """True: held out, False: dev, None: either (by list)."""
    source = row["source"]
    if source in EARLIER:
        return False
    if source == "v6_holdout":
        return True
    if source == "v7":
        return held_out(row["text"], "fuzi-v7-guard:", 0.4)
    if source == "v8":
        return held_out(row["text"], "fuzi-v8-guard:", 0.6 if row["attack"] else 0.75)
    if source == "v9":
        return held_out(row["text"], "fuzi-v9-guard:", 0.65)
    if source == "v10":
        return None
    raise ValueError(f"unknown source {source!r}")


def _en_side(row: dict) -> bool | None:
    source = row["source"]
    if source == "v6":
        return held_out(row["text"], "fuzi-v24-guard:", 0.4)
    if source.startswith("v7"):
        return held_out(row["text"], "fuzi-v7-guard:", 0.4)
    if source == "v9":
        return held_out(row["text"], "fuzi-v9-guard:", 0.65)
    if source == "v10":
        return True
    raise ValueError(f"unknown source {source!r}")


def rows(path: Path) -> list[dict]:
    """The JSON lines of `path`."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _order(name: str, part: list[dict], order: dict[str, int]) -> list[str]:
    """A batch's rows must not come before an earlier batch's (`order`: source → its rank)."""
    rank = [order[r["source"]] for r in part]
    return [] if rank == sorted(rank) else [f"{name}: a batch's rows come before an earlier batch's"]


def _task(root: Path, folder: str, side: Callable[[dict], bool | None], order: dict[str, int]) -> list[str]:
    dev, held = rows(root / folder / "dev.jsonl"), rows(root / folder / "heldout.jsonl")
    problems = _order(f"{folder}/dev", dev, order) + _order(f"{folder}/heldout", held, order)
    for name, part, want in (("dev", dev, False), ("heldout", held, True)):
        for r in part:
            if side(r) not in (want, None):
                problems.append(f"{folder}/{name}: a {r['source']} row is on the wrong side")
    counts = Counter(r["text"] for r in dev + held)
    repeated = sum(counts[r["text"]] > 1 for r in dev + held if r["source"] in FRESH_ONLY)
    if repeated:
        problems.append(f"{folder}: {repeated} lines of v8, v9 or v10 repeat a line of the sets")
    return problems


def check(root: Path = EVALS) -> list[str]:
    """Every rule above that the files under `root` break, one line each (empty: all hold)."""
    # dev: the first sets (in any order among them), then v7 … v10; held-out: v6_holdout, then v7 … v10
    zh_order = {s: 0 for s in EARLIER} | {"v6_holdout": 0, "v7": 1, "v8": 2, "v9": 3, "v10": 4}
    en_order = {"v6": 0, "v7": 1, "v7_legge": 1, "v7_waley": 1, "v7_lau": 1, "v7_slingerland": 1, "v9": 2, "v10": 3}
    problems = _task(root, "guard", _zh_side, zh_order)
    problems += _task(root, "guard_en", _en_side, en_order)
    fresh = rows(root / "guard" / "heldout_fresh.jsonl")
    dev = {r["text"] for r in rows(root / "guard" / "dev.jsonl")}
    if {r["source"] for r in fresh} != {"v11"} or dev & {r["text"] for r in fresh}:
        problems.append("guard/heldout_fresh: rows of another batch, or lines also in dev")
    return problems


def main() -> int:
    for folder, name in (("guard", "dev"), ("guard", "heldout"), ("guard", "heldout_fresh"), ("guard_en", "dev")):
        part = rows(EVALS / folder / f"{name}.jsonl")
        attacks = sum(r["attack"] for r in part)
        print(f"{folder}/{name}.jsonl: {len(part)} lines, {attacks} attacks, {len(part) - attacks} benign")
    print(f"guard_en/heldout.jsonl: {len(rows(EVALS / 'guard_en' / 'heldout.jsonl'))} benign lines")
    problems = check()
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
