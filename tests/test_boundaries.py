"""The core never imports a platform library; adapters own platform types."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"telegram", "discord"}


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


def test_the_check_sees_imports(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("import telegram.ext\nfrom discord import app_commands\n")
    assert _imported_roots(sample) >= FORBIDDEN
