"""`fuzi db upgrade` and `fuzi db current`: the schema migrations (Alembic) of FUZI_DATABASE_URL."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `db` subcommands."""
    db = sub.add_parser("db", help="database schema (migrations)").add_subparsers(dest="db_command", required=True)
    db.add_parser(
        "upgrade", help="bring the schema to the newest revision (safe with other processes running)"
    ).set_defaults(func=_upgrade)
    db.add_parser("current", help="print the schema revision and whether it is the newest").set_defaults(func=_current)


def _engine():
    from bot.database import database_engine
    from bot.logging import configure_logging
    from bot.settings import load_settings

    settings = load_settings()
    configure_logging(settings.env, "WARNING")
    settings.home.mkdir(parents=True, exist_ok=True)
    return database_engine(settings, migrate=False)


def _upgrade(_args: argparse.Namespace) -> int:
    from core.storage.migrate import upgrade

    engine = _engine()
    try:
        result = upgrade(engine)
    finally:
        engine.dispose()
    if result.changed:
        print(f"upgraded {result.before or '(no revision)'} -> {result.after}")
    else:
        print(f"already at {result.after} (newest)")
    return 0


def _current(_args: argparse.Namespace) -> int:
    from core.storage.migrate import current_revision, head_revision

    engine = _engine()
    try:
        current = current_revision(engine)
    finally:
        engine.dispose()
    head = head_revision()
    state = "newest" if current == head else f"behind; newest is {head}, run `fuzi db upgrade`"
    print(f"{current or '(no revision)'} ({state})")
    return 0 if current == head else 1
