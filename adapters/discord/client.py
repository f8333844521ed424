"""Fuzi's Discord bot: a discord.py client with slash commands, mention/DM/thread triggers and
streamed replies.

The client only translates. Messages and slash commands become :class:`core.types.Incoming`; the
engine's events stream into one Discord message through the shared
:class:`adapters.common.stream.StreamingReply`, paced by one outbound budget per channel, and the
final text is split into follow-ups. Reconnecting after gateway drops is discord.py's (``reconnect``
stays on).

Every message and interaction is kept in the inbox (core/inbox) from before it is handled until its
handling ended; what a dead process left is answered here (adapters/discord/intake.py).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from functools import partial
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
from adapters.discord.buttons import CommandButton, SkillButton
from adapters.discord.commands import build_commands
from adapters.discord.endpoints import discord_endpoints
from adapters.discord.intake import inbox_handlers, message_key, message_payload
from adapters.discord.interactions import Interactions, quietly
from adapters.discord.media import record_reaction, with_media
from adapters.discord.poster import DiscordPoster
from adapters.discord.quiz import QuizButton
from adapters.discord.quotes import quotes_of
from adapters.discord.settings import DiscordSettings
from adapters.discord.settings_commands import build_passage_command, build_settings_group
from adapters.discord.sink import ChannelSink, InteractionSink, channel_message, interaction_message
from adapters.discord.triggers import PLATFORM, incoming_from_message, is_bot_thread
from core.inbox import Inbox, InboxEntry, MemoryInboxStore
from core.ports import Engine
from core.quiz.ports import QuizAnswers
from core.schedule.ports import Posters
from core.shown_in import ShownIn
from core.texts import say
from core.types import Incoming

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
        inbox: keeps every message and interaction until it is handled, drops repeats (two processes
            connected as one shard, e.g. while a replacement starts, answer once) and hands over what
            a dead process left (adapters/discord/intake.py); default: in this process's memory only.
        interaction_ttl_s: how long an interaction token is used (INTERACTION_TTL_S; tests shorten it).
        quizzes: where quiz button presses go (core/quiz; adapters/discord/quiz.py); None: not known.
        **options: passed to :class:`discord.Client` (e.g. ``guild_ready_timeout``).
    """

    def __init__(
        self,
        settings: DiscordSettings,
        engine: Engine,
        *,
        clock: Callable[[], float] = time.monotonic,
        budgets: BudgetRegistry | None = None,
        inbox: Inbox | None = None,
        interaction_ttl_s: float = INTERACTION_TTL_S,
        quizzes: QuizAnswers | None = None,
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
        self.quizzes = quizzes
        self.inbox = inbox or Inbox(MemoryInboxStore())
        self._replays: set[asyncio.Task] = set()
        self.tree = app_commands.CommandTree(self)
        self.interactions = Interactions(self)
        self.tree.on_error = self.interactions.on_tree_error  # type: ignore[method-assign]
        self.synced: list[app_commands.AppCommand] = []
        self._repair: asyncio.Task | None = None

    # ------------------------------------------------------------------ lifecycle

    async def setup_hook(self) -> None:
        """Register the slash commands and sync them (to the dev guild when one is set)."""
        skills, extra = await _maybe_await(self.engine.skills()), await _maybe_await(self.engine.commands())
        guild = discord.Object(id=self.settings.guild_id) if self.settings.guild_id else None
        if self.settings.thread_replies and not self.settings.message_content:
            log.warning("discord_threads_need_message_content", hint="replies in threads need a mention without it")
        run, answers = self.interactions.run_command, self.interactions
        for command in build_commands(run, list(skills), list(extra)):
            self.tree.add_command(command, guild=guild)
        models = await _maybe_await(self.engine.models())
        self.tree.add_command(build_settings_group(run, list(skills), list(models)), guild=guild)
        self.tree.add_command(build_passage_command(answers.passage, answers.complete_passage), guild=guild)
        self.add_dynamic_items(SkillButton, CommandButton, QuizButton)
        if not self.settings.syncs_commands:  # the process running shard 0 syncs for everyone
            log.info("discord_commands_sync_skipped", shards=self.settings.shards)
            return
        self.synced = await self.tree.sync(guild=guild)
        log.info("discord_commands_synced", count=len(self.synced), guild=self.settings.guild_id)

    async def on_ready(self) -> None:
        log.info("discord_ready", user=str(self.user.id) if self.user else "", guilds=len(self.guilds))
        await self.close_interrupted()
        self.inbox.register(PLATFORM, inbox_handlers(self))  # what dead processes left is answered here
        if self._repair is None:  # replies of a process that died are swept by the engine meanwhile
            self._repair = asyncio.create_task(self._keep_repairing(), name="discord-repair")

    async def _keep_repairing(self) -> None:
        while True:
            await asyncio.sleep(REPAIR_EVERY_S)
            await self.close_interrupted()

    async def close(self) -> None:
        self.inbox.unregister(PLATFORM)
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
        incoming = self._incoming(message)
        if incoming is None:
            return
        key = message_key(message.id)
        if not await self.take(key, message_payload(message, incoming)):
            return
        try:
            await self._handle_message(message, incoming)
        finally:
            await self.inbox.done(PLATFORM, key)

    def _incoming(self, message: discord.Message) -> Incoming | None:
        if self.user is None:
            return None
        incoming = incoming_from_message(message, self.user.id, content_intent=self.settings.message_content)
        return with_media(message, incoming, self.user.id)  # attachments, or a quoted image

    async def replay_message(self, entry: InboxEntry) -> None:
        """A message a dead process took: fetched again and answered (the inbox's hand-over)."""
        p = entry.payload
        try:
            channel = self.get_channel(int(p["channel"])) or self.get_partial_messageable(
                int(p["channel"]), guild_id=int(p["guild"]) if p["guild"] else None
            )
            message = await channel.fetch_message(int(p["message"]))  # type: ignore[union-attr]
            incoming = self._incoming(message)
            if incoming is not None:  # addressed or not: the first process's word (intake.py)
                incoming = replace(incoming, addressed=p["addressed"], is_group=p["guild"] is not None)
                await self._handle_message(message, incoming)
        except discord.NotFound:
            log.info("discord_replay_gone", key=entry.key)  # deleted meanwhile: nothing to answer
        finally:
            await self.inbox.done(PLATFORM, entry.key)

    async def _handle_message(self, message: discord.Message, incoming: Incoming) -> None:
        if not incoming.addressed:
            await self._observe(incoming)
            return
        try:
            incoming = replace(incoming, quoted=await quotes_of(message, self._fetch_message))
            channel, incoming = await self._reply_channel(message, incoming)
            await self.stream(incoming, ChannelSink(channel, reply_to=message if channel is message.channel else None))
        except Exception:
            log.exception("discord_message_failed", trace_id=incoming.trace_id, chat=incoming.chat_key)
            await quietly(message.channel.send(say("ERROR", None, trace=incoming.trace_id)))

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

    # ------------------------------------------------------------------ interactions (interactions.py)

    async def run_choice(self, interaction: discord.Interaction, command: str, value: str) -> None:
        """A menu button was clicked: run ``/command value`` and put the answer in the menu's place."""
        message = interaction.message
        private = bool(message is not None and message.flags.ephemeral)
        await self.interactions.answer(interaction, command, value, private=private, label=f"button:{command}")

    # ------------------------------------------------------------------ streaming

    async def stream(self, incoming: Incoming, sink: ChannelSink | InteractionSink) -> StreamStats:
        """Stream the engine's answer to ``incoming`` into ``sink`` within the channel's budget."""
        budget = self.budgets.get(incoming.chat_key, self.settings.edit_interval_s)

        if isinstance(sink, InteractionSink):  # its response needs the token to be edited: noted for reactions only
            life = ReplyLifecycle(
                self.engine, PLATFORM, incoming.trace_id, partial(interaction_message, sink), repairable=False
            )
        else:
            life = ReplyLifecycle(self.engine, PLATFORM, incoming.trace_id, channel_message)
        reply = StreamingReply(
            sink, budget, trace_id=incoming.trace_id, placeholder="", on_shown=life.shown, on_part=life.part
        )
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

    async def take(self, key: str, payload: dict[str, Any]) -> bool:
        """Keep the event in the inbox: True when it is new, False for a repeat (another process has
        it). An inbox that cannot be written is logged and the event handled all the same: Discord
        does not send it again, so refusing it would lose it for sure."""
        try:
            return await self.inbox.accept(PLATFORM, key, payload)
        except Exception as exc:
            log.warning("discord_event_not_kept", key=key, error=type(exc).__name__)
            return True

    def spawn(self, work: Coroutine[Any, Any, None], entry: InboxEntry) -> None:
        """Run a replay beside the inbox's loop (an answer takes longer than one of its ticks)."""
        task = asyncio.create_task(work, name=f"discord-replay-{entry.key}")
        self._replays.add(task)
        task.add_done_callback(self._replays.discard)

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
    inbox: Inbox | None = None,
    budgets: BudgetRegistry | None = None,
    posters: Posters | None = None,
    quizzes: QuizAnswers | None = None,
) -> None:
    """Run the Discord bot until it is closed (``fuzi run discord``); with ``posters``, the scheduler
    (core/schedule) may post into Discord channels and threads while it runs. Messages and
    interactions another process took and never answered are answered here (or, too old, the person
    is told): ``inbox``'s hand-over, registered once the client is ready."""
    if settings.bot_token is None:
        raise ValueError("DISCORD_BOT_TOKEN is not set")
    client = make_client(settings, engine, inbox=inbox, budgets=budgets, quizzes=quizzes)
    if posters is not None:
        posters.register("discord", DiscordPoster(client, client.budgets, interval_s=settings.edit_interval_s))
    try:
        async with client:
            await client.start_with_endpoints(settings.bot_token.get_secret_value(), status=status)
    finally:
        if posters is not None:
            posters.unregister("discord")
