"""Import boundaries: the core never imports a platform library, bot/ or adapters/; adapters never
import bot/ (the composition root); and every third-party import is declared in pyproject.toml."""

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"telegram", "discord", "fastapi", "starlette", "uvicorn"}


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_never_imports_platform_libraries():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imported_roots(p) & FORBIDDEN)
        for p in (ROOT / "core").rglob("*.py")
        if _imported_roots(p) & FORBIDDEN
    }
    assert offenders == {}


def test_core_never_imports_bot_or_adapters():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imported_roots(p) & {"bot", "adapters"})
        for p in (ROOT / "core").rglob("*.py")
        if _imported_roots(p) & {"bot", "adapters"}
    }
    assert offenders == {}


def test_adapters_never_import_the_composition_root():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imported_roots(p) & {"bot"})
        for p in (ROOT / "adapters").rglob("*.py")
        if "bot" in _imported_roots(p)
    }
    assert offenders == {}


def _requirement_names(requirements: list[str]) -> set[str]:
    return {_normalise(re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0]) for r in requirements}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_third_party_import_is_declared():
    """Runtime code (bot, core, adapters, data) imports only declared dependencies; the extras
    (sentence-transformers, scikit-learn for training) may be imported by the code that needs them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    declared = _requirement_names(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        declared |= _requirement_names(extra)
    dists = packages_distributions()
    ours = {"bot", "core", "adapters", "data", "benchmarks", "evals", "tests"}
    undeclared: dict[str, list[str]] = {}
    for package in ("bot", "core", "adapters", "data"):
        for path in (ROOT / package).rglob("*.py"):
            for root in _imported_roots(path) - ours - set(sys.stdlib_module_names) - {"__future__"}:
                names = {_normalise(d) for d in dists.get(root, [root])}
                if not names & declared:
                    undeclared.setdefault(root, []).append(str(path.relative_to(ROOT)))
    assert undeclared == {}


def test_the_check_sees_imports(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text(
        "import telegram.ext\nfrom discord import app_commands\nimport fastapi, starlette.types\nfrom uvicorn import Server\n"
    )
    assert _imported_roots(sample) >= FORBIDDEN


def test_no_test_looks_for_a_shared_folder_beside_the_checkout():
    """A user's clone has no ../shared: tests find the corpus through tests/helpers_corpus.py."""
    pattern = re.compile(r"""(/\s*["']shared["'])|(["']\.\./shared)""")
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("*.py")
        if p.name not in {"test_corpus_resolution.py", "test_boundaries.py"} and pattern.search(p.read_text("utf-8"))
    ]
    assert offenders == []
