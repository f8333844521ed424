"""The guard evaluation sets (evals/guard, evals/guard_en): large enough to show the goals, and split
the way evals/guard/check.py says."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from evals.guard.check import check

EVALS = Path(__file__).resolve().parents[1] / "evals" / "guard"


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (EVALS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_held_out_can_show_half_a_percent_and_has_fresh_attacks_of_every_kind() -> None:
    held = rows("heldout.jsonl")
    assert sum(not r["attack"] and r["lang"] == "zh" for r in held) >= 400
    fresh = Counter(r["lang"] for r in held if r["attack"] and r["source"] == "v8")
    assert fresh["zh"] >= 80 and fresh["en"] >= 40
    kinds = {r["kind"] for r in held if r["attack"] and r["source"] == "v8"}
    for lang in ("zh", "en"):
        assert {f"{lang}_{k}" for k in ("task_swap", "roleplay", "extract", "jailbreak", "goal_hijack")} <= kinds


def test_no_v8_line_is_on_both_sides() -> None:
    dev = {r["text"] for r in rows("dev.jsonl")}
    held = {r["text"] for r in rows("heldout.jsonl") if r["source"] == "v8"}
    assert held and not dev & held
    # Older: three benign questions of the v6 holdout are also in guard_dev (docs/guards.md, v8).
    assert len(dev & {r["text"] for r in rows("heldout.jsonl")}) == 3


def test_v9_rows_come_after_the_earlier_ones_and_are_on_one_side_only() -> None:
    for name in ("dev.jsonl", "heldout.jsonl"):
        sources = [r["source"] for r in rows(name)]
        first = sources.index("v9")
        assert set(sources[first:]) == {"v9", "v10"}  # v10 after v9 (test below)
    dev = {r["text"] for r in rows("dev.jsonl")}
    held = [r for r in rows("heldout.jsonl") if r["source"] == "v9"]
    assert not dev & {r["text"] for r in held}
    fresh = Counter(r["lang"] for r in held if r["attack"])
    assert fresh["zh"] >= 35 and fresh["en"] >= 12
    assert sum(not r["attack"] for r in held) >= 150


def test_v10_rows_come_last_each_list_on_its_side_and_fresh() -> None:
    for name in ("dev.jsonl", "heldout.jsonl"):
        sources = [r["source"] for r in rows(name)]
        assert set(sources[sources.index("v10") :]) == {"v10"}
    dev = rows("dev.jsonl")
    held = [r for r in rows("heldout.jsonl") if r["source"] == "v10"]
    earlier = {r["text"] for r in dev + rows("heldout.jsonl") if r["source"] != "v10"}
    v10_dev = [r for r in dev if r["source"] == "v10"]
    assert not {r["text"] for r in v10_dev + held} & earlier
    assert not {r["text"] for r in v10_dev} & {r["text"] for r in held}
    assert sum(r["kind"] == "benign_zh_lookalike" for r in v10_dev) >= 200
    assert sum(r["kind"] == "zh_quote_wrapped" for r in v10_dev) >= 20
    fresh = Counter(r["lang"] for r in held if r["attack"])
    assert fresh["zh"] >= 30 and fresh["en"] >= 20
    assert sum(not r["attack"] for r in held) >= 100
    kinds = Counter(r["kind"] for r in held if r["attack"])
    assert kinds["zh_quote_wrapped"] >= 10 and kinds["zh_task_swap"] >= 10
    en = [json.loads(line) for line in (EVALS.parent / "guard_en" / "heldout.jsonl").read_text("utf-8").splitlines()]
    assert sum(r["source"] == "v10" for r in en) >= 25 and en[-1]["source"] == "v10"


def test_every_row_is_on_the_side_its_batch_rule_names(tmp_path: Path) -> None:
    assert check() == []
    copy = tmp_path / "evals"
    for name in ("guard", "guard_en"):
        shutil.copytree(EVALS.parent / name, copy / name)
    held = (copy / "guard" / "heldout.jsonl").read_text(encoding="utf-8").splitlines()
    dev = copy / "guard" / "dev.jsonl"
    moved = next(line for line in held if json.loads(line)["source"] == "v7")  # a held-out v7 line in dev
    dev.write_text(dev.read_text(encoding="utf-8") + moved + "\n", encoding="utf-8")
    assert any("v7 row is on the wrong side" in p for p in check(copy))
