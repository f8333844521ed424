"""`fuzi …` command line. Each group of subcommands lives in bot/commands/<name>.py with `register()`."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

# Modules under bot.commands that add subcommands; each exposes register(subparsers).
_COMMAND_MODULES = ["chat", "run", "guard", "retrieval", "web", "db", "doctor", "feedback", "mcp"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fuzi", description="Fuzi (夫子), a Confucius chat bot")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _COMMAND_MODULES:
        importlib.import_module(f"bot.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the chosen subcommand; settings errors print one line, exit 2."""
    # No cyclic collection while a command starts: its imports and parts live as long as the process,
    # and the 300-odd collections of a `fuzi chat` start (0.1–0.25 s of CPU on 2 cores) freed a few
    # thousand objects. A command that sets `collects_once_started` turns the collector back on itself
    # (`fuzi chat`, once its engine is open: bot/commands/chat.py); every other one at once.
    gc.disable()
    try:
        return _main(argv)
    finally:
        gc.enable()


def _main(argv: list[str] | None) -> int:
    from bot.errors import StartupError
    from bot.settings import SettingsError

    # LanceDB's Rust core prints WARN lines (e.g. "No existing dataset … will be created") straight to
    # stderr, over the terminal chat; only its errors are worth showing. Set LANCEDB_LOG to override.
    os.environ.setdefault("LANCEDB_LOG", "error")
    args = build_parser().parse_args(argv)
    if not getattr(args, "collects_once_started", False):
        gc.enable()
    try:
        return int(args.func(args) or 0)
    except (SettingsError, StartupError) as exc:
        print(f"fuzi: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
