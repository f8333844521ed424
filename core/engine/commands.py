"""Commands every adapter shares: a router and the built-in commands.

Built-ins: /start, /help, /skill [name], /cancel. Memory and guard parts register theirs on the same
router. Command replies are bilingual (Chinese, then English): a command carries no language hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from core.engine.admission import RunningReplies
from core.ports import CommandHandler, CommandResult, Turn
from core.skills import SkillRegistry
from core.storage.repos import ChatRepo
from core.texts import say

if TYPE_CHECKING:
    from core.chatsettings.command import SettingsCommand

log = structlog.get_logger(__name__)

_NAME = re.compile(r"^[a-z0-9_]{1,32}$")  # Telegram's rule for command names; Discord accepts it too


@dataclass(frozen=True)
class CommandSpec:
    """A registered command: name (no slash), handler and one-line summaries."""

    name: str
    handler: CommandHandler
    summary_zh: str
    summary_en: str
    screens_input: bool = False


class CommandRouter:
    """Maps command names to handlers; adapters list `commands()` in their menus."""

    def __init__(self) -> None:
        self._specs: dict[str, CommandSpec] = {}

    def register(
        self, name: str, handler: CommandHandler, *, summary_zh: str, summary_en: str, screens_input: bool = False
    ) -> None:
        """Add a command. Raises ValueError for a malformed or already registered name.

        ``screens_input``: the command checks its own arguments with a check made for them (e.g.
        /remember's fact screen), so the engine does not run the chat-message input check on them.
        """
        if not _NAME.match(name):
            raise ValueError(f"bad command name {name!r}: use 1-32 of a-z, 0-9, _")
        if name in self._specs:
            raise ValueError(f"command /{name} is already registered")
        self._specs[name] = CommandSpec(name, handler, summary_zh, summary_en, screens_input)

    def commands(self) -> list[tuple[str, str, str]]:
        """(name, summary_zh, summary_en) for every command, in registration order."""
        return [(s.name, s.summary_zh, s.summary_en) for s in self._specs.values()]

    def screens_input(self, name: str | None) -> bool:
        """True when the command checks its own arguments (see `register`)."""
        spec = self._specs.get(name or "")
        return spec is not None and spec.screens_input

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    async def dispatch(self, turn: Turn, name: str, args: str) -> CommandResult:
        """Run the command; an unknown name gets a short hint pointing at /help."""
        spec = self._specs.get(name)
        if spec is None:
            log.info("command_unknown", reason="unknown_command", chars=len(args))
            return CommandResult(
                f"未识别的命令 /{name}。发 /help 看看有哪些命令。Unknown command /{name}; try /help.",
                extra={"unknown": name},
            )
        log.info("command", command=name)
        return await spec.handler(turn, args)

    def help_text(self) -> str:
        """One line per command, both languages."""
        lines = ["夫子可应的命令 / Commands:"]
        lines += [f"/{s.name} — {s.summary_zh} · {s.summary_en}" for s in self._specs.values()]
        return "\n".join(lines)


class BuiltinCommands:
    """/start, /help, /skill and /cancel.

    Args:
        router: where the commands are registered (its /help lists every command, later ones too).
        skills: the skill registry.
        chats: persists each chat's skill.
        running: the running replies /cancel stops.
    """

    def __init__(
        self,
        router: CommandRouter,
        skills: SkillRegistry,
        chats: ChatRepo,
        running: RunningReplies,
        settings: SettingsCommand | None = None,
    ):
        self._router = router
        self._skills = skills
        self._chats = chats
        self._running = running
        self._settings = settings  # when given, /skill NAME is a settings change: admins only in groups

    def register(self) -> None:
        """Register the four built-ins on the router."""
        r = self._router
        r.register("start", self.start, summary_zh="拜见夫子", summary_en="Meet the Master")
        r.register("help", self.help, summary_zh="命令一览", summary_en="List commands")
        r.register(
            "skill",
            self.skill,
            summary_zh="切换问学方式：教诲、论诗、辩经",
            summary_en="Switch mode: teaching, poetry, debate",
        )
        r.register("cancel", self.cancel, summary_zh="停止正在进行的回答", summary_en="Stop the reply in progress")

    async def start(self, turn: Turn, args: str) -> CommandResult:
        skill = self._skills.get(turn.skill)
        text = (
            "有朋自远方来，不亦乐乎！吾乃孔丘。凡为人、为学、读《论语》《诗经》与《孟子》《大学》《中庸》之疑，皆可问我。\n"
            "Welcome, friend from afar. I am Kong Qiu. Ask me about living well, learning, the Analects "
            "or the Book of Songs.\n"
            f"此处现为「{skill.display_zh}」({skill.display_en})；/skill 可换，/help 看全部命令。"
        )
        return CommandResult(text, extra={"current": skill.name})

    async def help(self, turn: Turn, args: str) -> CommandResult:
        return CommandResult(self._router.help_text(), extra={"commands": self._router.commands()})

    async def skill(self, turn: Turn, args: str) -> CommandResult:
        current = self._skills.get(turn.skill)
        choices = self._skills.choices()
        if not args.strip():
            lines = [f"{'▶' if name == current.name else '·'} {name}: {display}" for name, display in choices]
            text = "问学之道 / Modes:\n" + "\n".join(lines) + "\n用法 Usage: /skill <name>"
            return CommandResult(text, extra={"choices": choices, "current": current.name})
        chosen = self._skills.find(args)
        if chosen is None:
            names = ", ".join(name for name, _ in choices)
            return CommandResult(
                f"没有「{args.strip()}」这一门。可选：{names}。No such mode; choose one of: {names}.",
                extra={"choices": choices, "current": current.name},
            )
        incoming = turn.incoming
        if self._settings is not None:
            result = await self._settings.change(turn, "skill", chosen.name)
            if "refused" in result.extra:
                return CommandResult(result.text, extra={"choices": choices, "current": current.name} | result.extra)
        else:
            await self._chats.set_skill(
                incoming.chat_key, chosen.name, platform=incoming.platform, is_group=incoming.is_group
            )
        log.info("skill_switched", skill_from=current.name, skill_to=chosen.name)
        return CommandResult(
            f"好，此后以「{chosen.display_zh}」相谈。Now in {chosen.display_en} mode.",
            extra={"choices": choices, "current": chosen.name},
        )

    async def cancel(self, turn: Turn, args: str) -> CommandResult:
        stopped = await self._running.cancel(turn.person_id)
        return CommandResult(say("CANCELLED" if stopped else "NOTHING_TO_CANCEL", None), extra={"cancelled": stopped})
