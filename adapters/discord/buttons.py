"""Buttons under a skill menu: the engine's ``Notice.extra["choices"]`` rendered as Discord buttons.

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

CUSTOM_ID_PREFIX = "fuzi:skill:"
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


def choice_view(extra: Mapping | None) -> discord.ui.View | None:
    """Buttons for a Notice's ``extra`` with ``choices`` [(name, display), …] and ``current``; else None."""
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
