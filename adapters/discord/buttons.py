"""Buttons under a skill menu (``Notice.extra["choices"]``) and command buttons (``extra["actions"]``:
/recite's ratings, ``fuzi:do:<command>:<args>``) rendered as Discord buttons.

A click is a component interaction whose ``custom_id`` (``fuzi:skill:<name>``) carries the choice, so
the buttons keep working after a restart: :class:`SkillButton` is a discord.py ``DynamicItem``
registered on the client, not a view held in memory per message. The click goes to the engine as
``Incoming(command="skill", text=name)`` and its answer replaces the menu message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol

import discord
import structlog

from adapters.discord.triggers import incoming_from_interaction
from core.events import Notice
from core.ports import Engine

log = structlog.get_logger(__name__)

CUSTOM_ID_PREFIX = "fuzi:skill:"
COMMAND_PREFIX = "fuzi:do:"
MAX_BUTTONS = 25  # 5 rows of 5


class ChoiceRunner(Protocol):
    """The client side of a click (``FuziDiscordClient.run_choice``)."""

    async def run_choice(self, interaction: discord.Interaction, command: str, value: str) -> None: ...


class SkillButton(discord.ui.DynamicItem[discord.ui.Button], template=r"fuzi:skill:(?P<name>[a-z0-9_]{1,32})"):
    """One skill choice; the highlighted (primary) button is the chat's current skill.

    Args:
        name: the skill's name (what the engine gets).
        label: the button text (the skill's display name).
        current: whether this is the skill in use.
    """

    def __init__(self, name: str, label: str = "", current: bool = False) -> None:
        style = discord.ButtonStyle.primary if current else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=(label or name)[:80], style=style, custom_id=CUSTOM_ID_PREFIX + name))
        self.name = name

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item, match: re.Match[str]
    ) -> SkillButton:
        return cls(match["name"])

    async def callback(self, interaction: discord.Interaction) -> Any:
        client: ChoiceRunner = interaction.client  # type: ignore[assignment]
        await client.run_choice(interaction, "skill", self.name)


class CommandButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"fuzi:do:(?P<command>[a-z0-9_]{1,32}):(?P<args>[a-z0-9_. -]{0,60})",
):
    """A button that runs ``/command args`` as whoever clicks it (``extra["actions"]``: /recite's
    ratings); the one whose last argument is ``extra["current"]`` is highlighted."""

    def __init__(self, command: str, args: str, label: str = "", current: bool = False) -> None:
        style = discord.ButtonStyle.primary if current else discord.ButtonStyle.secondary
        custom_id = f"{COMMAND_PREFIX}{command}:{args}"[:100]
        super().__init__(discord.ui.Button(label=(label or args)[:80], style=style, custom_id=custom_id))
        self.command, self.args = command, args

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item, match: re.Match[str]
    ) -> CommandButton:
        return cls(match["command"], match["args"])

    async def callback(self, interaction: discord.Interaction) -> Any:
        """Run the command as the clicker and answer only them (ephemeral): the message with the
        buttons stays as it is, so a click by someone else changes nothing anyone else sees."""
        engine: Engine = interaction.client.engine  # type: ignore[attr-defined]
        incoming = incoming_from_interaction(interaction, self.command, self.args)
        text = ""
        async for event in engine.handle(incoming):
            if isinstance(event, Notice):
                text = event.text
        try:
            await interaction.response.send_message((text or "…")[:2000], ephemeral=True)
        except discord.HTTPException as exc:  # an expired or already answered interaction
            log.info("discord_button_not_answered", status=exc.status)


def choice_view(extra: Mapping | None) -> discord.ui.View | None:
    """Buttons for a Notice's ``extra`` with ``choices`` [(name, display), …] and ``current``, or with
    ``actions`` [(label, command, args), …]; else None."""
    actions = (extra or {}).get("actions") or []
    if actions:
        view = discord.ui.View(timeout=None)
        current = (extra or {}).get("current")
        for label, command, args in list(actions)[:MAX_BUTTONS]:
            view.add_item(
                CommandButton(str(command), str(args), str(label), current=str(args).split()[-1:] == [current])
            )
        return view
    choices = (extra or {}).get("choices") or []
    if not choices:
        return None
    view = discord.ui.View(timeout=None)
    current = (extra or {}).get("current")
    for name, display in list(choices)[:MAX_BUTTONS]:
        view.add_item(SkillButton(str(name), str(display), current=name == current))
    return view


def view_kwargs(final: bool, extra: Mapping | None) -> dict[str, Any]:
    """``{"view": …}`` for a final part that carries choices, else ``{}`` (existing buttons stay)."""
    view = choice_view(extra) if final else None
    return {"view": view} if view is not None else {}
