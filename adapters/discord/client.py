"""Fuzi's Discord bot: a discord.py client with slash commands, mention/DM/thread triggers and
streamed replies.

The client only translates. Messages and slash commands become :class:`core.types.Incoming`; the
engine's events stream into one Discord message through the shared
:class:`adapters.common.stream.StreamingReply`, paced by one outbound budget per channel, and the
final text is split into follow-ups. Reconnecting after gateway drops is discord.py's (``reconnect``
stays on).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import aiohttp
import discord
import structlog
from discord import app_commands

from adapters.common.budget import BudgetRegistry
from adapters.common.lifecycle import ReplyLifecycle, close_interrupted
from adapters.common.sink import StreamStats
from adapters.common.startup import PlatformRejected, PlatformStatus, connect_with_backoff
from adapters.common.stream import StreamingReply
from adapters.discord.buttons import SkillButton
from adapters.discord.commands import CommandSpec, build_commands
from adapters.discord.endpoints import discord_endpoints
from adapters.discord.media import record_reaction, with_media
from adapters.discord.poster import DiscordPoster
from adapters.discord.quotes import quotes_of
from adapters.discord.settings import DiscordSettings
from adapters.discord.settings_commands import AUTOCOMPLETE_CHOICES, build_passage_command, build_settings_group
from adapters.discord.sink import ChannelSink, InteractionSink
from adapters.discord.triggers import PLATFORM, incoming_from_interaction, incoming_from_message, is_bot_thread
from core.inbox.seen import InMemorySeen, Seen
from core.ports import Engine
from core.schedule.ports import Posters
from core.shown_in import ShownIn
from core.texts import say
from core.types import Incoming, new_trace_id

log = structlog.get_logger(__name__)
REPAIR_EVERY_S = 2.0  # how often frozen messages the engine's repair sweep closed are corrected

THREAD_NAME_LIMIT = 90
# how long an interaction token is used before the reply moves to a plain channel message: Discord's
# tokens expire after 15 minutes, a margin is kept (was DISCORD_INTERACTION_TTL_S)
INTERACTION_TTL_S = 14 * 60 + 30.0


class FuziDiscordClient(discord.Client):
    """The Discord bot.

    Args:
        settings: the Discord settings section.
        engine: the chat engine every message and command goes through.
        clock: monotonic clock for interaction-token age (tests inject one).
        budgets: per-channel outbound budgets (one registry per client by default; shared by every
            process when it has a gate, see ``bot.shared_state.build_budgets``).
        seen: which message and interaction ids were handled already, shared by every process (two
            processes connected as one shard, e.g. while a replacement starts, answer once).
        interaction_ttl_s: how long an interaction token is used (INTERACTION_TTL_S; tests shorten it).
        **options: passed to :class:`discord.Client` (e.g. ``guild_ready_timeout``).
    """

    def __init__(
        self,
        settings: DiscordSettings,
        engine: Engine,
        *,
        clock: Callable[[], float] = time.monotonic,
        budgets: BudgetRegistry | None = None,
        seen: Seen | None = None,
        interaction_ttl_s: float = INTERACTION_TTL_S,
        **options: Any,
    ) -> None:
        # reactions: 👍/👎 on answers are feedback (adapters/discord/media.py)
        intents = discord.Intents(
            guilds=True, guild_messages=True, dm_messages=True, guild_reactions=True, dm_reactions=True
        )
        intents.message_content = settings.message_content
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        if settings.shards is not None:  # N processes split the gateway: this one runs these shards
            sharded = isinstance(self, discord.AutoShardedClient)
            options.setdefault(
                "shard_ids" if sharded else "shard_id", list(settings.shards) if sharded else settings.shards[0]
            )
            options.setdefault("shard_count", settings.shard_count)
        super().__init__(intents=intents, **options)
        self.settings = settings
        self.engine = engine
        self.clock = clock
        self.interaction_ttl_s = interaction_ttl_s
        self.budgets = budgets or BudgetRegistry()
        self.seen = seen or InMemorySeen()
        self.tree = app_commands.CommandTree(self)
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]
        self.synced: list[app_commands.AppCommand] = []
        self._repair: asyncio.Task | None = None

    # ------------------------------------------------------------------ lifecycle

    async def setup_hook(self) -> None:
        """Register the slash commands and sync them (to the dev guild when one is set)."""
        skills, extra = await _maybe_await(self.engine.skills()), await _maybe_await(self.engine.commands())
        guild = discord.Object(id=self.settings.guild_id) if self.settings.guild_id else None
        if self.settings.thread_replies and not self.settings.message_content:
            log.warning("discord_threads_need_message_content", hint="replies in threads need a mention without it")
        for command in build_commands(self._run_command, list(skills), list(extra)):
            self.tree.add_command(command, guild=guild)
        self.tree.add_command(build_settings_group(self._run_command, list(skills)), guild=guild)
        self.tree.add_command(build_passage_command(self._passage, self._complete_passage), guild=guild)
        self.add_dynamic_items(SkillButton)
        if not self.settings.syncs_commands:  # the process running shard 0 syncs for everyone
            log.info("discord_commands_sync_skipped", shards=self.settings.shards)
            return
        self.synced = await self.tree.sync(guild=guild)
        log.info("discord_commands_synced", count=len(self.synced), guild=self.settings.guild_id)

    async def on_ready(self) -> None:
        log.info("discord_ready", user=str(self.user.id) if self.user else "", guilds=len(self.guilds))
        await self.close_interrupted()
        if self._repair is None:  # replies of a process that died are swept by the engine meanwhile
            self._repair = asyncio.create_task(self._keep_repairing(), name="discord-repair")

    async def _keep_repairing(self) -> None:
        while True:
            await asyncio.sleep(REPAIR_EVERY_S)
            await self.close_interrupted()

    async def close(self) -> None:
        if self._repair is not None:
            self._repair.cancel()
        await super().close()

    async def close_interrupted(self) -> None:
        """Edit each channel message a crash froze half-way into "interrupted, please ask again".

        Only plain channel messages are noted (``record_shown``); an interaction's response needs its
        token, which a restarted process no longer has.
        """

        async def correct(where: ShownIn) -> None:
            channel = self.get_partial_messageable(int(where.chat))
            if where.message_id is not None:
                await channel.get_partial_message(where.message_id).edit(content=say("INTERRUPTED", None))
            else:  # cut before a channel message was noted (or a slash command's): say so anew
                await channel.send(say("INTERRUPTED", None))

        # deleted, no access, malformed: nothing to correct
        await close_interrupted(self.engine, "discord", correct, gone=(discord.HTTPException, ValueError))

    # ------------------------------------------------------------------ messages

    async def on_message(self, message: discord.Message) -> None:
        """Answer DMs, mentions and messages in Fuzi's threads; pass other text on as context."""
        if self.user is None:
            return
        incoming = incoming_from_message(message, self.user.id, content_intent=self.settings.message_content)
        incoming = with_media(message, incoming, self.user.id)  # attachments, or a quoted image
        if incoming is None or not await self._first("message", message.id):
            return
        if not incoming.addressed:
            await self._observe(incoming)
            return
        try:
            incoming = replace(incoming, quoted=await quotes_of(message, self._fetch_message))
            channel, incoming = await self._reply_channel(message, incoming)
            await self._stream(incoming, ChannelSink(channel, reply_to=message if channel is message.channel else None))
        except Exception:
            log.exception("discord_message_failed", trace_id=incoming.trace_id, chat=incoming.chat_key)
            await self._quiet(message.channel.send(say("ERROR", None, trace=incoming.trace_id)))

    async def _fetch_message(self, channel_id: int, message_id: int) -> discord.Message:
        """A message over REST (a quoted message the gateway did not include)."""
        return await self.get_partial_messageable(channel_id).fetch_message(message_id)

    async def on_raw_reaction_add(self, event: discord.RawReactionActionEvent) -> None:
        """A reaction on a message: feedback when it is one of Fuzi's answers."""
        await record_reaction(self.engine, event, self.user.id if self.user else 0, added=True)

    async def on_raw_reaction_remove(self, event: discord.RawReactionActionEvent) -> None:
        await record_reaction(self.engine, event, self.user.id if self.user else 0, added=False)

    async def _reply_channel(self, message: discord.Message, incoming: Incoming) -> tuple[Any, Incoming]:
        """Where to answer: the message's channel, or a new thread when thread replies are on."""
        starts_thread = (
            self.settings.thread_replies
            and isinstance(message.channel, discord.TextChannel)
            and not is_bot_thread(message.channel, self.user.id if self.user else 0)
        )
        if not starts_thread:
            return message.channel, incoming
        name = (incoming.text or "夫子").splitlines()[0][:THREAD_NAME_LIMIT]
        thread = await message.create_thread(name=name)
        return thread, replace(incoming, chat_id=str(thread.id))

    async def _observe(self, incoming: Incoming) -> None:
        """Give the engine an unaddressed message (channel context); it may answer nothing."""
        try:
            async for _ in self.engine.handle(incoming):
                pass
        except Exception:
            log.exception("discord_observe_failed", trace_id=incoming.trace_id, chat=incoming.chat_key)

    # ------------------------------------------------------------------ slash commands

    async def _run_command(self, interaction: discord.Interaction, spec: CommandSpec, text: str) -> None:
        """Defer ("thinking…"), run the command or question through the engine, stream the answer."""
        private = spec.private and interaction.guild_id is not None
        await self._answer(interaction, spec.engine_command, text, private=private, label=spec.name)

    async def _complete_passage(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Autocomplete for /passage: passages found for what is typed so far (value: the passage id)."""
        result = await self.engine.look_up("discord", str(interaction.user.id), current, AUTOCOMPLETE_CHOICES)
        return [app_commands.Choice(name=f"{p.ref} {p.text}"[:100], value=p.id) for p in result.passages]

    async def _passage(self, interaction: discord.Interaction, query: str) -> None:
        """/passage: the best passage for the query (or the id autocomplete chose), with its citation."""
        await interaction.response.defer(thinking=True)
        result = await self.engine.look_up("discord", str(interaction.user.id), query, 1)
        text = passage_text(result.passages[0]) if result.passages else (result.hint or "…")
        await interaction.edit_original_response(content=text)

    async def run_choice(self, interaction: discord.Interaction, command: str, value: str) -> None:
        """A menu button was clicked: run ``/command value`` and put the answer in the menu's place."""
        message = interaction.message
        private = bool(message is not None and message.flags.ephemeral)
        await self._answer(interaction, command, value, private=private, label=f"button:{command}")

    async def _answer(
        self, interaction: discord.Interaction, command: str | None, text: str, *, private: bool, label: str
    ) -> None:
        """Defer the interaction, stream the engine's answer into its original response, apologize on failure.

        A slash command's deferral shows "thinking…" (a new message); a button's deferral keeps the
        message the button is on, and the answer replaces it.
        """
        if not await self._first("interaction", interaction.id):
            return
        incoming = incoming_from_interaction(interaction, command, text)
        sink = InteractionSink(interaction, private=private, ttl=self.interaction_ttl_s, clock=self.clock)
        is_click = interaction.type is discord.InteractionType.component
        try:
            await interaction.response.defer(thinking=not is_click, ephemeral=private)
            stats = await self._stream(incoming, sink)
            if not sink.used and stats.outcome == "empty" and not is_click:
                await interaction.delete_original_response()
        except Exception:
            log.exception("discord_command_failed", trace_id=incoming.trace_id, command=label, chat=incoming.chat_key)
            await self._apologize(interaction, incoming.trace_id)

    async def _on_tree_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        trace_id = new_trace_id()
        name = interaction.command.name if interaction.command else ""
        log.error("discord_command_error", trace_id=trace_id, command=name, error=type(error).__name__, exc_info=error)
        await self._apologize(interaction, trace_id)

    async def _apologize(self, interaction: discord.Interaction, trace_id: str) -> None:
        """A short fixed apology with the trace id, ephemeral where Discord allows it."""
        text = say("ERROR", None, trace=trace_id)
        if interaction.response.is_done():
            await self._quiet(interaction.followup.send(text, ephemeral=True))
        else:
            await self._quiet(interaction.response.send_message(text, ephemeral=True))

    # ------------------------------------------------------------------ streaming

    async def _stream(self, incoming: Incoming, sink: ChannelSink | InteractionSink) -> StreamStats:
        """Stream the engine's answer to ``incoming`` into ``sink`` within the channel's budget."""
        budget = self.budgets.get(incoming.chat_key, self.settings.edit_interval_s)

        life = ReplyLifecycle(self.engine, PLATFORM, incoming.trace_id)

        async def shown(handle: Any) -> None:
            if isinstance(handle, discord.Message) and not isinstance(handle, discord.WebhookMessage):
                await life.shown(handle.channel.id, handle.id)

        reply = StreamingReply(sink, budget, trace_id=incoming.trace_id, placeholder="", on_shown=shown)
        stats = await life.stream(reply, self.engine.handle(incoming))
        log.info(
            "discord_reply_done",
            trace_id=incoming.trace_id,
            chat=incoming.chat_key,
            outcome=stats.outcome,
            sends=stats.sends,
            edits=stats.edits,
            first_visible_s=_elapsed(stats.started_at, stats.first_visible_at),
            total_s=_elapsed(stats.started_at, stats.final_at),
        )
        return stats

    async def _first(self, kind: str, event_id: int) -> bool:
        """True the first time any process sees this message or interaction; a repeat is logged and dropped."""
        if await self.seen.first(f"discord:{kind}:{event_id}"):
            return True
        log.info("discord_event_repeated", kind=kind, id=str(event_id))
        return False

    async def _quiet(self, request: Any) -> None:
        """Await a best-effort request (an apology); failures are logged, not raised."""
        try:
            await request
        except discord.HTTPException as exc:
            log.warning("discord_apology_failed", status=exc.status)

    # ------------------------------------------------------------------ running

    async def start_with_endpoints(self, token: str, *, status: PlatformStatus | None = None) -> None:
        """Log in and run until closed, against the configured endpoints (reconnects on drops).

        Discord unreachable at start (network, 5xx): the login is retried with backoff.

        Raises:
            PlatformRejected: Discord refused the token (one line, without the token).
        """
        with discord_endpoints(self.settings.api_base_url, self.settings.gateway_url):
            await connect_with_backoff(
                lambda: self._login(token),
                platform="discord",
                status=status,
                transient=(aiohttp.ClientError, OSError, discord.DiscordServerError),
            )
            await self.connect(reconnect=True)

    async def _login(self, token: str) -> None:
        try:
            await self.login(token)
        except discord.LoginFailure:
            raise PlatformRejected("Discord rejected the bot token: check DISCORD_BOT_TOKEN") from None


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def passage_text(p: Any) -> str:
    """A looked-up passage as a Discord message: the text, then its citation in subtext."""
    return f"{p.text[:1900]}\n-# {p.ref} · {p.id}"


def _elapsed(start: float, end: float | None) -> float | None:
    return None if end is None else round(end - start, 3)


class FuziShardedDiscordClient(FuziDiscordClient, discord.AutoShardedClient):
    """The bot running several shards in one process (``DISCORD_SHARD_IDS=0,1``): discord.py's
    AutoShardedClient opens one gateway connection per shard and routes each guild's events to its shard."""


def make_client(settings: DiscordSettings, engine: Engine, **options: Any) -> FuziDiscordClient:
    """The bot for these settings: one connection, or one per shard when this process runs several."""
    several = settings.shards is not None and len(settings.shards) > 1
    return (FuziShardedDiscordClient if several else FuziDiscordClient)(settings, engine, **options)


async def run_discord(
    settings: DiscordSettings,
    engine: Engine,
    *,
    status: PlatformStatus | None = None,
    seen: Seen | None = None,
    budgets: BudgetRegistry | None = None,
    posters: Posters | None = None,
) -> None:
    """Run the Discord bot until it is closed (``fuzi run discord``); with ``posters``, the scheduler
    (core/schedule) may post into Discord channels and threads while it runs."""
    if settings.bot_token is None:
        raise ValueError("DISCORD_BOT_TOKEN is not set")
    client = make_client(settings, engine, seen=seen, budgets=budgets)
    if posters is not None:
        posters.register("discord", DiscordPoster(client, client.budgets, interval_s=settings.edit_interval_s))
    try:
        async with client:
            await client.start_with_endpoints(settings.bot_token.get_secret_value(), status=status)
    finally:
        if posters is not None:
            posters.unregister("discord")
