"""An installed wheel holds every data file the product reads: each file tracked under the packages
that is not Python source is named by pyproject.toml's package-data (or listed below as not shipped).
A missing pattern is silent until an installed Fuzi looks for the file: the Mencius chapter table
and the segment renderings were once left out this way."""

from __future__ import annotations

import subprocess
import tomllib
from fnmatch import fnmatchcase
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "core", "adapters", "data")
# Not read at run time: the data's own notes, and the kernel's C sources (setup.py compiles them at
# install; the wheel holds the compiled module).
NOT_SHIPPED = ("*/README.md", "*/UNCERTAIN.md", "core/retrieval/e5/*.c", "core/retrieval/e5/*.h")


def shipped_patterns() -> list[str]:
    """package-data's patterns as paths from the repository root."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data: dict[str, list[str]] = config["tool"]["setuptools"]["package-data"]
    return [
        f"{package.replace('.', '/')}/{pattern}" for package, patterns in package_data.items() for pattern in patterns
    ]


def matches(path: str, pattern: str) -> bool:
    """setuptools' glob: `*` stays within one folder."""
    return path.count("/") == pattern.count("/") and fnmatchcase(path, pattern)


def test_every_data_file_of_the_packages_is_in_the_wheel():
    tracked = subprocess.run(
        ["git", "ls-files", *PACKAGES], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert any(p.startswith("data/books/") for p in tracked)
    data = [p for p in tracked if not p.endswith(".py") and not any(fnmatchcase(p, n) for n in NOT_SHIPPED)]
    patterns = shipped_patterns()
    missing = [p for p in data if not any(matches(p, pattern) for pattern in patterns)]
    assert missing == [], f"not in pyproject.toml's package-data, so not in a wheel: {missing}"


def test_the_rule_tells_folders_apart():
    assert matches("data/glosses/g1.jsonl", "data/glosses/*.jsonl")
    assert not matches("data/glosses/segments/p1.jsonl", "data/glosses/*.jsonl")
