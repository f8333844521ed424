"""`fuzi doctor`: checks settings, corpus, index, database, LLM and platform tokens; one line each."""

from __future__ import annotations

import argparse
import asyncio


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `doctor` subcommand."""
    p = sub.add_parser("doctor", help="check settings, corpus, index, database, LLM and platform tokens")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds per online check (default 5)")
    p.set_defaults(func=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from bot.doctor import Check, run_checks
    from bot.settings import SettingsError, load_settings

    try:
        settings = load_settings()
    except SettingsError as exc:
        print(Check("settings", "fail", str(exc)).line())
        return 1
    print(Check("settings", "ok", f"loaded (FUZI_HOME={settings.home})").line(), flush=True)
    checks = asyncio.run(run_checks(settings, timeout_s=args.timeout))
    for check in checks:
        print(check.line())
    return 1 if any(c.status == "fail" for c in checks) else 0
