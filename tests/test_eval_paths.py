"""Every evaluation file that code or the README's commands name exists: the evals layout of issue 21
(`evals/<task>/{dev,heldout}.jsonl`) deleted the older sets, and a default path left pointing at one
makes the command fail on its first line."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMED = re.compile(r"evals/[\w./-]+\.(?:jsonl|tsv)")


def test_every_eval_file_named_by_code_or_the_readme_exists():
    sources = [ROOT / "README.md"] + [
        path
        for folder in ("bot", "benchmarks", "scripts", "core", "adapters")
        for path in (ROOT / folder).rglob("*.py")
    ]
    missing = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in sources
        for name in NAMED.findall(path.read_text(encoding="utf-8"))
        if not (ROOT / name).is_file()
    )
    assert missing == []
