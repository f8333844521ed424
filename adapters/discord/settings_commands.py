"""Discord's `/settings` (a command group with choices, answered ephemerally) and `/passage` (autocomplete).

`/settings show|skill|script|daily|digest|quiz|books|model` build the same words as the text command
(`skill poetry`, `daily 08:00 Asia/Taipei`, …) and hand them to the engine's /settings, so the
parsing, the admin rule (Manage Server or Manage Channels, sent with every interaction) and the
refusals are the engine's, one place for every platform.

`/passage query`: while typing, autocomplete offers up to `AUTOCOMPLETE_CHOICES` passages found by
retrieval alone (the engine's look-up, with its per-person limit); the chosen value is the passage
id. The command answers publicly with the passage and its citation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

import discord
from discord import app_commands

from adapters.discord.commands import CommandRunner, CommandSpec

SETTINGS = CommandSpec("settings", "本频道的设置 · This channel's settings", private=True)
AUTOCOMPLETE_CHOICES = 10
_SCRIPTS = (("简体 simplified", "simplified"), ("繁體 traditional", "traditional"), ("自动 auto", "auto"))
_SWITCH = (("on", "on"), ("off", "off"))

PassageRunner = Callable[[discord.Interaction, str], Awaitable[None]]
Completer = Callable[[discord.Interaction, str], Coroutine[Any, Any, list[app_commands.Choice[str]]]]


def _choices(pairs: Sequence[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=name[:100], value=value) for name, value in pairs][:25]


def build_settings_group(
    run: CommandRunner, skills: Sequence[tuple[str, str]], models: Sequence[str] = ()
) -> app_commands.Group:
    """`/settings` with one subcommand per setting (and `show`); `model` when there are models to pick."""
    group = app_commands.Group(name="settings", description=SETTINGS.description)

    @group.command(name="show", description="查看本频道的设置 · Show this channel's settings")
    async def show(interaction: discord.Interaction) -> None:
        await run(interaction, SETTINGS, "")

    @group.command(name="skill", description="本频道的问学方式（管理员）· Default skill (admins)")
    @app_commands.choices(value=_choices([(display, name) for name, display in skills]))
    async def skill(interaction: discord.Interaction, value: app_commands.Choice[str]) -> None:
        await run(interaction, SETTINGS, f"skill {value.value}")

    @group.command(name="script", description="简体或繁體作答（管理员）· Answer script (admins)")
    @app_commands.choices(value=_choices(_SCRIPTS))
    async def script(interaction: discord.Interaction, value: app_commands.Choice[str]) -> None:
        await run(interaction, SETTINGS, f"script {value.value}")

    @group.command(name="daily", description="每日一章：HH:MM 或 off（管理员）· Daily passage (admins)")
    @app_commands.describe(time="08:00, 8:00 pm, 晚上8点 or off", zone="IANA zone, e.g. Asia/Taipei or UTC")
    async def daily(interaction: discord.Interaction, time: str, zone: str | None = None) -> None:
        await run(interaction, SETTINGS, f"daily {time} {zone or ''}".strip())

    @group.command(name="digest", description="群聊评点，每日一次（管理员）· Daily digest (admins)")
    @app_commands.choices(value=_choices(_SWITCH))
    async def digest(interaction: discord.Interaction, value: app_commands.Choice[str]) -> None:
        await run(interaction, SETTINGS, f"digest {value.value}")

    @group.command(name="books", description="每日一章选自哪些书（管理员）· Books of the daily passage (admins)")
    @app_commands.describe(books="all, sishu, or ids such as lunyu,mengzi")
    async def books(interaction: discord.Interaction, books: str) -> None:
        await run(interaction, SETTINGS, f"books {books}")

    @group.command(name="quiz", description="每日一题：HH:MM 或 off（管理员）· Daily group quiz (admins)")
    @app_commands.describe(time="08:00, 8:00 pm, 晚上8点 or off", zone="IANA zone, e.g. Asia/Taipei or UTC")
    async def quiz(interaction: discord.Interaction, time: str, zone: str | None = None) -> None:
        await run(interaction, SETTINGS, f"quiz {time} {zone or ''}".strip())

    if models:  # FUZI_LLM_MODELS lists some: the default first, then the others (Discord shows 25 at most)

        @group.command(name="model", description="本频道所用的模型（管理员）· This channel's model (admins)")
        @app_commands.choices(value=_choices([(name, name) for name in models]))
        async def model(interaction: discord.Interaction, value: app_commands.Choice[str]) -> None:
            await run(interaction, SETTINGS, f"model {value.value}")

    return group


def build_passage_command(run: PassageRunner, complete: Completer) -> app_commands.Command:
    """`/passage query` with autocomplete over the look-up."""

    @app_commands.describe(query="字句或篇名，如 学而、关雎 · words to look up")
    async def callback(interaction: discord.Interaction, query: str) -> None:
        await run(interaction, query)

    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name="passage", description="查一章原文 · Look up a passage", callback=callback
    )
    command.autocomplete("query")(complete)
    return command
