"""Every evaluation file or lab script that code, the README, the changelog or a doc names exists: the
rounds' files were deleted (git keeps them at the tag lab-rounds-archive), and a default path or a
documented command left pointing at one fails on its first line."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMED = re.compile(r"evals/[\w./-]+\.(?:jsonl|tsv|py)")


def test_every_eval_file_named_by_code_or_the_docs_exists():
    sources = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "evals" / "README.md"]
    sources += sorted((ROOT / "docs").glob("*.md"))
    sources += [
        path
        for folder in ("bot", "benchmarks", "scripts", "core", "adapters", "evals", "data")
        for path in (ROOT / folder).rglob("*.py")
    ]
    missing = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in sources
        for name in NAMED.findall(path.read_text(encoding="utf-8"))
        if not (ROOT / name).is_file()
    )
    assert missing == []
