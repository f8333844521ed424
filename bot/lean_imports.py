"""Two libraries every entry point imports, imported without the optional packages they would load
for features Fuzi never uses (a start is mostly imports: docs/performance.md, "Warm start").

- structlog imports rich (with attrs and pygments: ~80 ms of a 2-core machine's start) for its
  exception formatters; Fuzi's processors turn tracebacks into text first (`format_exc_info`,
  bot/logging.py), so those formatters are never called.
- tenacity imports tornado (~10 ms) for `@retry` on tornado coroutines; Fuzi uses `AsyncRetrying`.

Each optional package is hidden only while its library imports, and only when nothing has imported
it yet: `rich` stays importable for the first start's progress bars (bot/progress.py).
"""

from __future__ import annotations

import gc
import sys

WITHOUT = {"structlog": ("rich",), "tenacity": ("tornado",)}


def import_without(module: str, hidden: tuple[str, ...]) -> None:
    """Import `module` as if the packages `hidden` were not installed; as usual when `module` or one
    of them is imported already."""
    if module in sys.modules or any(name in sys.modules for name in hidden):
        return
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError
    try:
        __import__(module)  # the import statement's path: `-X importtime` lists it
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def import_lean() -> None:
    """structlog and tenacity, each without its optional package (`WITHOUT`); no cyclic collection
    meanwhile (as for the rest of a start: bot/cli.py)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        for module, hidden in WITHOUT.items():
            import_without(module, hidden)
    finally:
        if collecting:
            gc.enable()
