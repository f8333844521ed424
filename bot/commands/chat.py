"""`fuzi chat`: the terminal adapter on embedded defaults."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("chat", help="chat with Fuzi in the terminal")
    p.add_argument("--user", default=None, help="who speaks (default: the OS user)")
    p.add_argument("--chat", default=None, help="which chat (default: a private chat of that user)")
    p.add_argument("--group", action="store_true", help="make the chat a group chat")
    p.set_defaults(func=_chat)


def _chat(args: argparse.Namespace) -> int:
    from adapters.console import ConsoleAdapter, ConsoleIdentity, stdin_lines
    from bot.first_start import prepare_data
    from bot.settings import load_settings
    from bot.wiring import open_engine, setup_logging

    settings = load_settings()
    setup_logging(settings, log_file=settings.home / "logs" / "fuzi.log")
    user = args.user or _os_user()
    who = ConsoleIdentity(user=user, chat=args.chat or f"dm-{user}", group=args.group)
    interactive = sys.stdin.isatty()

    async def main() -> int:
        first_build = await prepare_data(settings)
        async with open_engine(settings, first_build) as engine:
            adapter = ConsoleAdapter(engine, who, sys.stdout, interactive=interactive)
            if interactive:
                print("夫子在此。输入问题，/help 查看命令，/quit 离开。", flush=True)
            return await adapter.run(stdin_lines())  # the adapter prompts when it is idle

    return asyncio.run(main())


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers)
        return "me"
