"""`fuzi chat`: the terminal adapter on embedded defaults."""

from __future__ import annotations

import argparse
import asyncio
import gc
import getpass
import os
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("chat", help="chat with Fuzi in the terminal")
    p.add_argument("--user", default=None, help="who speaks (default: the OS user)")
    p.add_argument("--chat", default=None, help="which chat (default: a private chat of that user)")
    p.add_argument("--group", action="store_true", help="make the chat a group chat")
    p.add_argument("--image", type=Path, default=None, help="first send this photo (a page, a screenshot)")
    p.add_argument("--voice", type=Path, default=None, help="first send this voice recording (needs FUZI_STT_*)")
    p.add_argument("--caption", default="", help="the question that goes with --image / --voice")
    p.set_defaults(func=_chat, collects_once_started=True)


def _chat(args: argparse.Namespace) -> int:
    from adapters.console import ConsoleAdapter, ConsoleIdentity, stdin_lines
    from bot.first_start import prepare_data
    from bot.logging import setup_logging
    from bot.settings import load_settings
    from bot.wiring import open_engine

    settings = load_settings()
    setup_logging(settings, log_file=settings.home / "logs" / "fuzi.log")
    user = args.user or _os_user()
    who = ConsoleIdentity(user=user, chat=args.chat or f"dm-{user}", group=args.group)
    interactive = sys.stdin.isatty()

    async def main() -> int:
        first_build = await prepare_data(settings)
        async with open_engine(settings, first_build) as engine:
            collect_from_now()
            adapter = ConsoleAdapter(engine, who, sys.stdout, interactive=interactive)
            for media in file_media(args.image, "image") + file_media(args.voice, "voice"):
                await adapter.say(args.caption, (media,))
            if interactive:
                print("夫子在此。输入问题，/help 查看命令，/quit 离开。", flush=True)
            return await adapter.run(stdin_lines())  # the adapter prompts when it is idle

    try:
        return asyncio.run(main())
    except BrokenPipeError:
        # Whoever read the replies stopped (`fuzi chat < questions.txt | head -3`): the engine has
        # closed (every answer so far is stored, a first index build finished); say so in one line,
        # and point stdout at /dev/null so the interpreter's last flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print("fuzi chat: the output was closed; stopped answering", file=sys.stderr)
        return 1
    finally:
        # The engine is closed and the process ends next: the interpreter's last collection over
        # every object of the imports (~0.3 s on 2 cores) frees nothing the OS would not.
        gc.freeze()


def collect_from_now() -> None:
    """The garbage collector back on (bot/cli.py turned it off for the start), with every object the
    start made frozen out of its collections: they live as long as the process."""
    gc.freeze()
    gc.enable()


def file_media(path: Path | None, kind: str):
    """A file named on the command line as the core's Media (read when the engine asks for it)."""
    from core.media.intake import MediaLimits
    from core.types import Media

    if path is None:
        return ()
    if not path.is_file():
        raise SystemExit(f"fuzi chat: no such file: {path}")
    cap = MediaLimits().max_image_bytes

    async def fetch() -> bytes:
        with path.open("rb") as f:
            return f.read(cap + 1)  # a larger file is refused by the intake without reading it all

    return (Media(kind, fetch, size=path.stat().st_size, name=path.name),)  # type: ignore[arg-type]


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers)
        return "me"
