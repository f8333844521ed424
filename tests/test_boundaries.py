"""Import boundaries: the core never imports a platform library, bot/ or adapters/; adapters never
import bot/ (the composition root); the product never imports the lab (evals/); and every third-party
import is declared in pyproject.toml."""

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


def test_the_product_never_imports_the_lab():
    """evals/ (sets, training, judges, benchmarks) imports the product; bot, core, adapters and data
    never import it, nor the benchmarks or the tests: an installed wheel has none of them."""
    lab = {"evals", "lab", "benchmarks", "tests"}
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imported_roots(p) & lab)
        for package in ("bot", "core", "adapters", "data")
        for p in (ROOT / package).rglob("*.py")
        if _imported_roots(p) & lab
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


# ---------------------------------------------------------------- size and import cycles

PACKAGES = ("bot", "core", "adapters", "data")
MAX_LINES = 400


def _modules(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted module name → file, for every module of the first-party packages under `root`."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def test_every_module_has_at_most_400_lines():
    over = {
        str(path.relative_to(ROOT)): lines
        for path in _modules(ROOT).values()
        if (lines := len(path.read_text("utf-8").splitlines())) > MAX_LINES
    }
    assert over == {}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth (function-level ones too), except under `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def _import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the first-party modules it imports (`from a import b` counts `a.b` when that is a module,
    and the packages the import initialises)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text("utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        # importing a.b.c first runs a/__init__ and a/b/__init__: an edge to each such package that
        # does not contain the importer (its own packages are already initialising)
        parents = {t.rsplit(".", k)[0] for t in targets for k in range(1, t.count(".") + 1)}
        own = {name.rsplit(".", k)[0] for k in range(0, name.count(".") + 1)}
        graph[name] = {t for t in targets | (parents - own) if t in modules and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycles_among_first_party_modules():
    """Function-level imports count (they only hide a cycle); imports under TYPE_CHECKING do not."""
    assert _cycles(_import_graph(_modules(ROOT))) == []


def test_the_cycle_check_sees_hidden_and_relative_imports(tmp_path):
    pkg = tmp_path / "core" / "pkg"
    pkg.mkdir(parents=True)
    (tmp_path / "core" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from core.pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import c\n")  # function-level, relative
    (pkg / "c.py").write_text("import core.pkg.a\n")
    (pkg / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.pkg import e\n")
    (pkg / "e.py").write_text("from core.pkg.d import x\n")
    graph = _import_graph(_modules(tmp_path, ("core",)))
    assert _cycles(graph) == [["core.pkg.a", "core.pkg.b", "core.pkg.c"]]  # d ↔ e only under TYPE_CHECKING


def test_the_cycle_check_sees_a_cycle_through_a_package_init(tmp_path):
    """`from core.store.models import x` runs core/store/__init__.py first: a cycle through it counts
    (how core.memory.models ↔ core.storage.chatlog once failed to import when a test ran alone)."""
    for package in ("core", "core/store", "core/mem"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "core/store/__init__.py").write_text("from core.store.repos import Repo\n")
    (tmp_path / "core/store/repos.py").write_text("from core.mem.models import Fact\n")
    (tmp_path / "core/store/models.py").write_text("def utcnow(): ...\n")
    (tmp_path / "core/mem/models.py").write_text("from core.store.models import utcnow\n")
    graph = _import_graph(_modules(tmp_path, ("core",)))
    assert _cycles(graph) == [["core.mem.models", "core.store", "core.store.repos"]]


# ---------------------------------------------------------------- the core's layers

CORE_LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    # the words every part speaks: plain data, events, language, what is said instead of an answer
    (
        "vocabulary",
        frozenset({"types", "events", "shown_in", "failopen", "logging", "periodic", "language", "texts", "books"}),
    ),
    # the ports: the model's (core/llm) and the engine's with the parts that plug into it
    ("ports", frozenset({"llm", "ports"})),
    # the parts behind the ports; they may use one another, never the engine
    (
        "parts",
        frozenset(
            {"storage", "inbox", "retrieval", "tools", "memory", "guards", "media", "agent"}
            | {"citations", "prompts", "skills", "chatsettings", "reading"}
        ),
    ),
    # the reply pipeline
    ("engine", frozenset({"engine"})),
    # what wraps the engine (the daily digest taps it) and what registers every part's tables
    ("above the engine", frozenset({"schedule", "recite", "quiz", "storage.migrations"})),
)


def _core_unit(module: str) -> str:
    """`core.engine.ladder` → "engine", `core.storage.migrations.env` → "storage.migrations"."""
    parts = module.split(".")[1:]
    return "storage.migrations" if parts[:2] == ["storage", "migrations"] else (parts[0] if parts else "")


def _layer_violations(graph: dict[str, set[str]]) -> tuple[list[str], list[str]]:
    """(core modules in no layer, imports of a higher layer's module) of an import graph."""
    rank = {unit: i for i, (_, units) in enumerate(CORE_LAYERS) for unit in units}
    unplaced, upward = [], []
    for module, targets in sorted(graph.items()):
        if not module.startswith("core.") or _core_unit(module) == "":
            continue
        own = rank.get(_core_unit(module))
        if own is None:
            unplaced.append(module)
            continue
        for target in sorted(targets):
            if target.startswith("core.") and rank.get(_core_unit(target), -1) > own:
                upward.append(f"{module} ({CORE_LAYERS[own][0]}) imports {target}")
    return unplaced, upward


def test_the_core_is_layered():
    """Vocabulary ← ports ← parts ← engine ← what wraps it: no module imports a higher layer (imports
    at any depth count, as in the cycle check), and every core module belongs to a layer."""
    assert _layer_violations(_import_graph(_modules(ROOT, ("core",)))) == ([], [])


def test_the_layer_check_sees_an_upward_import(tmp_path):
    for package in ("core", "core/engine", "core/storage", "core/brandnew"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "core/engine/ladder.py").write_text("from core.types import Passage\n")
    (tmp_path / "core/types.py").write_text("")
    (tmp_path / "core/storage/repos.py").write_text("def f():\n    from core.engine import ladder\n")
    (tmp_path / "core/brandnew/x.py").write_text("")
    unplaced, upward = _layer_violations(_import_graph(_modules(tmp_path, ("core",))))
    assert unplaced == ["core.brandnew", "core.brandnew.x"]
    # a function-level import counts, and so does the package it initialises
    assert upward == [f"core.storage.repos (parts) imports {m}" for m in ("core.engine", "core.engine.ladder")]


def test_the_root_of_core_holds_at_most_ten_modules():
    """The rest lives in packages (core/engine, core/language, core/retrieval …)."""
    loose = sorted(p.name for p in (ROOT / "core").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= 10, loose
