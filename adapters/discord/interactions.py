"""Slash commands, button clicks and /passage on the client's side.

Each interaction is kept in the inbox first (adapters/discord/intake.py), then deferred at once
(Discord's 3-second deadline), then answered by streaming the engine's reply into its original
response; a failure is answered with a short apology carrying the trace id. An interaction a dead
process left is answered here too, through its stored token (`replay`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
import structlog
from discord import app_commands

from adapters.discord.commands import CommandSpec
from adapters.discord.intake import (
    PLATFORM,
    incoming_from_payload,
    interaction_key,
    interaction_payload,
    rebuilt_interaction,
    token_left_s,
)
from adapters.discord.settings_commands import AUTOCOMPLETE_CHOICES
from adapters.discord.sink import InteractionSink
from adapters.discord.triggers import incoming_from_interaction
from core.inbox import InboxEntry
from core.texts import say
from core.types import Incoming, new_trace_id

if TYPE_CHECKING:
    from adapters.discord.client import FuziDiscordClient

log = structlog.get_logger(__name__)


class Interactions:
    """What the client does with an interaction (module docstring).

    Args:
        client: the bot (its engine, inbox, streaming and token lifetime).
    """

    def __init__(self, client: FuziDiscordClient) -> None:
        self.client = client

    async def run_command(self, interaction: discord.Interaction, spec: CommandSpec, text: str) -> None:
        """A slash command: run the command or question through the engine, stream the answer."""
        private = spec.private and interaction.guild_id is not None
        await self.answer(interaction, spec.engine_command, text, private=private, label=spec.name)

    async def complete_passage(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Autocomplete for /passage: passages found for what is typed so far (value: the passage id)."""
        result = await self.client.engine.look_up("discord", str(interaction.user.id), current, AUTOCOMPLETE_CHOICES)
        return [app_commands.Choice(name=f"{p.ref} {p.text}"[:100], value=p.id) for p in result.passages]

    async def passage(self, interaction: discord.Interaction, query: str) -> None:
        """/passage: the best passage for the query (or the id autocomplete chose), with its citation."""
        incoming = incoming_from_interaction(interaction, None, query)
        key = interaction_key(interaction.id)
        payload = interaction_payload(interaction, incoming, kind="passage", private=False, label="passage")
        if not await self.client.take(key, payload):
            return
        try:
            await interaction.response.defer(thinking=True)
            await interaction.edit_original_response(content=await self.passage_text(interaction.user.id, query))
        finally:
            await self.client.inbox.done(PLATFORM, key)

    async def passage_text(self, user_id: int | str, query: str) -> str:
        result = await self.client.engine.look_up("discord", str(user_id), query, 1)
        return passage_text(result.passages[0]) if result.passages else (result.hint or "…")

    async def answer(
        self, interaction: discord.Interaction, command: str | None, text: str, *, private: bool, label: str
    ) -> None:
        """Keep the interaction, defer it, stream the engine's answer into its original response.

        A slash command's deferral shows "thinking…" (a new message); a button's deferral keeps the
        message the button is on, and the answer replaces it.
        """
        incoming = incoming_from_interaction(interaction, command, text)
        key = interaction_key(interaction.id)
        payload = interaction_payload(interaction, incoming, kind="interaction", private=private, label=label)
        if not await self.client.take(key, payload):
            return
        try:
            client = self.client
            sink = InteractionSink(interaction, private=private, ttl=client.interaction_ttl_s, clock=client.clock)
            await self._fill(interaction, incoming, sink, label=label, defer=True)
        finally:
            await self.client.inbox.done(PLATFORM, key)

    async def replay(self, entry: InboxEntry) -> None:
        """An interaction a dead process took, answered through its token while it works (its original
        response, then follow-ups), else in its channel (a DM when private): adapters/discord/intake.py."""
        p, client = entry.payload, self.client
        interaction = rebuilt_interaction(client, p)
        channel = client.get_partial_messageable(int(p["channel"]))
        left_s = token_left_s(entry, client.interaction_ttl_s)
        try:
            if p["kind"] == "passage":
                text = await self.passage_text(p["user"], p["text"])
                if left_s > 0:
                    try:
                        await interaction.edit_original_response(content=text)
                        return
                    except discord.HTTPException as exc:
                        log.info("discord_replay_token_refused", key=entry.key, status=exc.status)
                await channel.send(text)
                return
            sink = InteractionSink(interaction, private=p["private"], ttl=left_s, clock=client.clock, channel=channel)
            await self._fill(interaction, incoming_from_payload(p), sink, label=p["label"], defer=False)
        finally:
            await client.inbox.done(PLATFORM, entry.key)

    async def _fill(
        self, interaction: discord.Interaction, incoming: Incoming, sink: InteractionSink, *, label: str, defer: bool
    ) -> None:
        """Defer (``defer``: this process took it), stream the answer into ``sink``, apologize on failure."""
        is_click = interaction.type is discord.InteractionType.component
        try:
            if defer:
                await interaction.response.defer(thinking=not is_click, ephemeral=sink.private)
            stats = await self.client.stream(incoming, sink)
            if not sink.used and stats.outcome == "empty" and not is_click:
                await interaction.delete_original_response()
        except Exception:
            log.exception("discord_command_failed", trace_id=incoming.trace_id, command=label, chat=incoming.chat_key)
            await self.apologize(interaction, incoming.trace_id, acknowledged=not defer)

    async def on_tree_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        trace_id = new_trace_id()
        name = interaction.command.name if interaction.command else ""
        log.error("discord_command_error", trace_id=trace_id, command=name, error=type(error).__name__, exc_info=error)
        await self.apologize(interaction, trace_id)

    async def apologize(self, interaction: discord.Interaction, trace_id: str, *, acknowledged: bool = False) -> None:
        """A short fixed apology with the trace id, ephemeral where Discord allows it (``acknowledged``:
        an interaction rebuilt from the inbox, deferred by the process that took it)."""
        text = say("ERROR", None, trace=trace_id)
        if acknowledged or interaction.response.is_done():
            await quietly(interaction.followup.send(text, ephemeral=True))
        else:
            await quietly(interaction.response.send_message(text, ephemeral=True))


async def quietly(request: Any) -> None:
    """Await a best-effort request (an apology); failures are logged, not raised."""
    try:
        await request
    except discord.HTTPException as exc:
        log.warning("discord_apology_failed", status=exc.status)


def passage_text(p: Any) -> str:
    """A looked-up passage as a Discord message: the text, then its citation in subtext."""
    return f"{p.text[:1900]}\n-# {p.ref} · {p.id}"
