"""requirements.lock, the pinned runtime set that a first `./scripts/chat` installs without resolving
(scripts/_venv.sh), agrees with pyproject.toml: `./scripts/lock` regenerates it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
# `name==version`, optionally `; marker`: no URL, hash or index option ties the lock to one registry.
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;]+)(?:\s*;\s*(?P<marker>.+))?$")


def _pins(text: str) -> dict[str, list[Version]]:
    pins: dict[str, list[Version]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.match(line)
        assert match, f"requirements.lock holds a line that is not a plain pin: {line!r}"
        pins.setdefault(canonicalize_name(match["name"]), []).append(Version(match["version"]))
    return pins


def _disagreements(requirements: list[str], pins: dict[str, list[Version]]) -> list[str]:
    """Each requirement of pyproject.toml that the lock does not pin, or pins (under any marker) to a
    version outside the requirement's range."""
    found = []
    for text in requirements:
        requirement = Requirement(text)
        versions = pins.get(canonicalize_name(requirement.name), [])
        if not versions:
            found.append(f"{requirement.name}: not in requirements.lock")
        for version in versions:
            if not requirement.specifier.contains(version, prereleases=True):
                found.append(f"{requirement.name}=={version} is outside {requirement.specifier}")
    return found


def test_the_lock_pins_every_runtime_requirement_within_its_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    pins = _pins((ROOT / "requirements.lock").read_text("utf-8"))
    assert _disagreements(project["dependencies"], pins) == [], "pyproject.toml changed: run ./scripts/lock"


def test_the_check_sees_a_missing_or_stale_pin_and_a_line_that_is_no_plain_pin():
    pins = _pins(
        "# header\nnumpy==2.4.6 ; python_full_version < '3.12'\nnumpy==2.5.5 ; python_full_version >= '3.12'\n"
    )
    assert _disagreements(["numpy>=1.26"], pins) == []
    assert _disagreements(["numpy>=2.5"], pins) == ["numpy==2.4.6 is outside >=2.5"]
    assert _disagreements(["jieba>=0.42.1"], pins) == ["jieba: not in requirements.lock"]
    for line in ("numpy>=2", "numpy @ https://example.org/numpy.whl", "--index-url https://example.org/simple"):
        try:
            _pins(line)
        except AssertionError:
            continue
        raise AssertionError(f"{line!r} passed as a pin")
