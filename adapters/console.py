"""Terminal adapter: a real adapter over stdin/stdout, and the end-to-end harness for scripts.

Interactive (a TTY): prompts, streams the answer as it is written, then prints the footnotes.
Lines typed while Fuzi answers are sent at once, so /cancel stops the reply (anything else gets the
engine's "busy" notice); /quit stops it and leaves; Ctrl-D lets it finish, then leaves.
Piped: one message per input line, strictly in turn; prints each final reply (or notice) followed by
a blank line, and returns at EOF. Every line is addressed to Fuzi, also in `--group` chats: a script plays
several people by running `fuzi chat --user NAME --chat NAME --group` once per speaker.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import TextIO

from adapters.common.render import compose
from core.events import FinalReply, Notice, ReplyEvent, TextDelta, TextReset, ToolStep
from core.ports import Engine
from core.types import ASK_COMMAND, Incoming, Media, parse_command

PROMPT = "你> "
SPEAKER = "夫子> "
# C0 controls but tab and newline, DEL and C1: ESC/CSI/OSC sequences in a model's answer or a stored
# fact could recolour, clear or retitle the terminal, or write its clipboard (OSC 52).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class ConsoleIdentity:
    """Who speaks where: user and chat names, and whether the chat is a group."""

    user: str
    chat: str
    group: bool = False


class ConsoleAdapter:
    """Drives the engine from text lines and prints what it answers."""

    def __init__(self, engine: Engine, who: ConsoleIdentity, out: TextIO, *, interactive: bool):
        self._engine = engine
        self._who = who
        self._out = out
        self._interactive = interactive

    def incoming(self, line: str, media: tuple[Media, ...] = ()) -> Incoming:
        """Translate one typed line (and a photo or voice file given with it) into the engine's Incoming."""
        command, args = parse_command(line)
        if command == ASK_COMMAND or (command and media):  # `/ask …` is a question, as on the platforms
            command, line = None, args
        return Incoming(
            platform="console",
            user_id=self._who.user,
            chat_id=self._who.chat,
            text=args if command else line,
            user_name=self._who.user,
            is_group=self._who.group,
            addressed=True,
            command=command,
            media=media,
        )

    async def say(self, line: str, media: tuple[Media, ...] = ()) -> None:
        """Send one line (with `media`: a photo's caption) to Fuzi and print the reply."""
        streamed = False
        async with aclosing(self._engine.handle(self.incoming(line, media))) as events:
            async for event in events:
                streamed = self._show(event, streamed)
        self._write("\n")

    def _show(self, event: ReplyEvent, streamed: bool) -> bool:
        if isinstance(event, TextDelta) and self._interactive:
            self._write(("" if streamed else SPEAKER) + event.text)
            return True
        if isinstance(event, TextReset) and streamed:
            self._write("\n（夫子重新斟酌……）\n")
            return False
        if isinstance(event, ToolStep) and self._interactive and event.phase == "start":
            self._write(f"{'' if not streamed else chr(10)}  …（翻检典籍：{event.name}）\n")
            return False
        if isinstance(event, FinalReply):
            self._show_final(event, streamed)
        elif isinstance(event, Notice):
            self._write(("\n" if streamed else "") + f"{SPEAKER if self._interactive else ''}{event.text}\n")
        return streamed

    def _show_final(self, final: FinalReply, streamed: bool) -> None:
        if streamed:
            # The streamed body may differ from the final one (citation numbers are cleaned up),
            # so an interactive reply ends with the checked final text's footnotes.
            footer = compose(FinalReply(text="", citations=final.citations)).strip()
            self._write("\n" + (footer + "\n" if footer else ""))
            return
        self._write((SPEAKER if self._interactive else "") + compose(final) + "\n")

    def _write(self, text: str) -> None:
        self._out.write(_CONTROL.sub("", text))
        self._out.flush()

    async def run(self, lines: AsyncIterator[str]) -> int:
        """Answer every line until the input ends; returns the exit status (0)."""
        if self._interactive:
            return await self._run_interactive(lines)
        async for line in lines:
            await self.say(line)
        return 0

    async def _run_interactive(self, lines: AsyncIterator[str]) -> int:
        """Prompt when idle; a line typed during a reply goes to the engine at once (so /cancel works)."""
        reply: asyncio.Task | None = None
        self._write(PROMPT)
        async for line in lines:
            if line.strip() in {"/quit", "/exit"}:
                if reply is not None:
                    reply.cancel()
                break
            if reply is None or reply.done():
                reply = asyncio.create_task(self._say_then_prompt(line))
            else:
                await self.say(line)
        if reply is not None:
            await asyncio.wait({reply})
        return 0

    async def _say_then_prompt(self, line: str) -> None:
        await self.say(line)
        self._write(PROMPT)


async def stdin_lines() -> AsyncGenerator[str, None]:
    """Lines from stdin without blocking the event loop (the adapter writes its own prompt).

    Bytes that do not decode become U+FFFD: a stray byte never ends the chat (a strict stdin would
    raise UnicodeDecodeError) and never reaches the engine as an unstorable surrogate.
    """
    binary = getattr(sys.stdin, "buffer", None)
    encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
    while True:
        line = await asyncio.to_thread(binary.readline if binary is not None else sys.stdin.readline)
        if not line:
            return
        if isinstance(line, bytes):
            line = line.decode(encoding, errors="replace")
        yield line.rstrip("\r\n")
