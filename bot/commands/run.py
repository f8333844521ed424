"""`fuzi run telegram|discord|all`: the platform bots (Procfile uses these)."""

from __future__ import annotations

import argparse
import asyncio


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run the Telegram and/or Discord bot")
    p.add_argument("platform", choices=["telegram", "discord", "all"])
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from bot.logging import configure_logging
    from bot.settings import SettingsError, load_settings
    from bot.wiring import open_engine, prepare_data

    settings = load_settings()
    configure_logging(settings)
    wanted = ["telegram", "discord"] if args.platform == "all" else [args.platform]
    for name in wanted:
        if getattr(settings, name).bot_token is None:
            raise SettingsError(f"missing setting {name.upper()}_BOT_TOKEN: needed for `fuzi run {name}`")

    async def main() -> int:
        await prepare_data(settings, say=print)
        async with open_engine(settings) as engine:
            await asyncio.gather(*(_runner(name)(getattr(settings, name), engine) for name in wanted))
        return 0

    return asyncio.run(main())


def _runner(name: str):
    if name == "telegram":
        from adapters.telegram.app import run_telegram

        return run_telegram
    from adapters.discord.client import run_discord

    return run_discord
