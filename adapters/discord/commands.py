"""Fuzi's slash commands, built for a discord.py ``app_commands.CommandTree``.

The fixed set (/ask, /skill, /remember, /memories, /forget, /profile, /reset, /link, /help) has
Discord-specific options and privacy; any other command the engine registers (``engine.commands()``,
e.g. /cancel) is added with one optional text option and the engine's summaries.

Every command only translates: it hands the interaction, the engine command name (None for /ask,
which is plain chat text), the argument text and whether the answer is private to a
:data:`CommandRunner`, which defers, drives the engine and renders what it answers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import discord
from discord import app_commands


@dataclass(frozen=True)
class CommandSpec:
    """One slash command.

    Attributes:
        name: slash name, also the engine command (except /ask, which sends chat text).
        description: shown in Discord's command picker (at most 100 characters).
        arg: the option's name, or None for a command without one.
        arg_description: the option's description.
        required: whether the option must be given.
        private: answer ephemerally (only the invoker sees it) in guild channels.
    """

    name: str
    description: str
    arg: str | None = None
    arg_description: str = ""
    required: bool = False
    private: bool = False

    @property
    def engine_command(self) -> str | None:
        """The engine's command name; /ask is a question, not a command."""
        return None if self.name == "ask" else self.name


CommandRunner = Callable[[discord.Interaction, CommandSpec, str], Awaitable[None]]

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("ask", "向夫子请教 · Ask Fuzi a question", "question", "你的问题 · your question", required=True),
    CommandSpec("remember", "请夫子记住一件事 · Ask Fuzi to remember something", "text", "要记住的事", True, True),
    CommandSpec("memories", "夫子记得关于你的事 · What Fuzi remembers about you", private=True),
    CommandSpec("forget", "请夫子忘记 · Make Fuzi forget", "what", "编号或内容；留空则全部", private=True),
    CommandSpec("profile", "你的资料 · Your profile", "text", "留空查看；填写则更新", private=True),
    CommandSpec("reset", "清空本频道的对话 · Start this channel's conversation afresh"),
    CommandSpec(
        "link", "关联其他平台的账号 · Link your accounts across platforms", "code", "另一平台给出的代码", private=True
    ),
    CommandSpec("help", "用法 · How to talk with Fuzi", private=True),
)
SKILL = CommandSpec("skill", "选择夫子的技能 · Choose Fuzi's skill for this channel", "skill", "技能")
NOT_ON_DISCORD = {"start"}  # Telegram's greeting; Discord shows the command list instead


def build_commands(
    run: CommandRunner,
    skills: Sequence[tuple[str, str]],
    engine_commands: Sequence[tuple[str, str, str]] = (),
) -> list[app_commands.Command]:
    """All of Fuzi's slash commands.

    Args:
        run: what every command calls.
        skills: (name, display_name) pairs, /skill's choices.
        engine_commands: (name, summary_zh, summary_en) the engine knows; the ones not in the fixed
            set become commands with one optional text option.
    """
    known = {spec.name for spec in COMMANDS} | {SKILL.name, "settings"} | NOT_ON_DISCORD  # /settings: a group
    extras = [
        CommandSpec(name, f"{zh} · {en}"[:100], "text", "参数（可留空）")
        for name, zh, en in engine_commands
        if name not in known
    ]
    return [_text_command(spec, run) for spec in (*COMMANDS, *extras)] + [_skill_command(run, skills)]


def _text_command(spec: CommandSpec, run: CommandRunner) -> app_commands.Command:
    if spec.arg is None:

        async def callback(interaction: discord.Interaction) -> None:
            await run(interaction, spec, "")

    elif spec.required:

        async def callback(interaction: discord.Interaction, text: str) -> None:  # type: ignore[misc]
            await run(interaction, spec, text)

    else:

        async def callback(interaction: discord.Interaction, text: str | None = None) -> None:  # type: ignore[misc]
            await run(interaction, spec, text or "")

    if spec.arg is not None:
        callback = app_commands.rename(text=spec.arg)(app_commands.describe(text=spec.arg_description)(callback))
    return app_commands.Command(name=spec.name, description=spec.description, callback=callback)


def _skill_command(run: CommandRunner, skills: Sequence[tuple[str, str]]) -> app_commands.Command:
    choices = [app_commands.Choice(name=display[:100], value=name) for name, display in skills][:25]

    async def callback(interaction: discord.Interaction, skill: app_commands.Choice[str] | None = None) -> None:
        await run(interaction, SKILL, skill.value if skill is not None else "")

    callback = app_commands.describe(skill=SKILL.arg_description)(callback)
    if choices:
        callback = app_commands.choices(skill=choices)(callback)
    return app_commands.Command(name=SKILL.name, description=SKILL.description, callback=callback)
