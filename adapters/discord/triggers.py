"""When Fuzi answers a Discord message, and the :class:`Incoming` the engine sees for it.

Fuzi answers every DM, a mention in a guild channel (of the bot or of its managed role, which
Discord's autocomplete often picks), a reply to one of its messages, and every message in a thread
it started.
With the message-content intent, other guild messages reach the engine unaddressed (channel context);
without it Discord sends them without content, so they are ignored. Context is per channel, thread
and DM: ``chat_id`` is that channel's id.
"""

from __future__ import annotations

import re

import discord

from core.types import ASK_COMMAND, Incoming, parse_command

PLATFORM = "discord"


FORWARD_ONLY = "请看这条转发的消息。"
"""The person's words for a forward sent without a comment: the forwarded text comes as a quote."""


def is_forward(message: discord.Message) -> bool:
    """A forwarded message (its text is in `message_snapshots`, see adapters/discord/quotes.py)."""
    ref = message.reference
    return ref is not None and ref.type is discord.MessageReferenceType.forward and bool(message.message_snapshots)


def is_bot_thread(channel: object, bot_id: int) -> bool:
    """True for a thread the bot started."""
    return isinstance(channel, discord.Thread) and channel.owner_id == bot_id


def bot_role_ids(message: discord.Message, bot_id: int) -> set[int]:
    """Ids of the bot's own managed roles mentioned in ``message``."""
    return {r.id for r in message.role_mentions if r.tags is not None and r.tags.bot_id == bot_id}


def replies_to_bot(message: discord.Message, bot_id: int) -> bool:
    """True when ``message`` is a reply to one of the bot's messages."""
    resolved = message.reference.resolved if message.reference is not None else None
    return isinstance(resolved, discord.Message) and resolved.author.id == bot_id


def is_addressed(message: discord.Message, bot_id: int) -> bool:
    """A DM, a mention of the bot or its role, a reply to the bot, or a message in the bot's thread."""
    if message.guild is None:
        return True
    if any(user.id == bot_id for user in message.mentions) or bot_role_ids(message, bot_id):
        return True
    return replies_to_bot(message, bot_id) or is_bot_thread(message.channel, bot_id)


def strip_mentions(text: str, bot_id: int, role_ids: set[int] = frozenset()) -> str:  # type: ignore[assignment]
    """The text without mentions of the bot (``<@id>``, ``<@!id>``) or of its roles (``<@&id>``)."""
    text = re.sub(rf"<@!?{bot_id}>", " ", text)
    for role_id in role_ids:
        text = text.replace(f"<@&{role_id}>", " ")
    return text.strip()


def readable_mentions(text: str, message: discord.Message) -> str:
    """Other users', roles' and channels' mentions as ``@name`` / ``#name``, as people read them."""
    for user in message.mentions:
        text = re.sub(rf"<@!?{user.id}>", f"@{user.display_name}", text)
    for role in message.role_mentions:
        text = text.replace(f"<@&{role.id}>", f"@{role.name}")
    for channel in message.channel_mentions:
        text = text.replace(f"<#{channel.id}>", f"#{channel.name}")
    return text


def incoming_from_message(message: discord.Message, bot_id: int, *, content_intent: bool) -> Incoming | None:
    """The engine's view of ``message``, or None when Fuzi should not see it at all.

    Args:
        message: the Discord message.
        bot_id: Fuzi's user id.
        content_intent: whether the message-content intent is on (unaddressed messages have text).
    """
    if message.author.bot or message.author.id == bot_id:
        return None
    if message.type not in (discord.MessageType.default, discord.MessageType.reply):
        return None
    addressed = is_addressed(message, bot_id)
    text = readable_mentions(strip_mentions(message.content, bot_id, bot_role_ids(message, bot_id)), message)
    if not text and addressed and is_forward(message):  # a forward with no words of the person's own
        text = FORWARD_ONLY
    if not text or (not addressed and not content_intent):
        return None
    command, args = parse_command(text) if addressed else (None, text)
    if command == ASK_COMMAND:  # a typed `/ask …` is a question, like the slash command
        command, text = None, args
    return Incoming(
        platform=PLATFORM,
        user_id=str(message.author.id),
        chat_id=str(message.channel.id),
        text=args if command else text,
        user_name=message.author.display_name,
        is_group=message.guild is not None,
        addressed=addressed,
        command=command,
        message_id=str(message.id),
        sender_admin=_manages(message.author.guild_permissions) if isinstance(message.author, discord.Member) else None,
    )


def _manages(permissions: discord.Permissions | None) -> bool | None:
    """Manage Server or Manage Channels (or Administrator): the admins of a guild's settings."""
    if permissions is None:
        return None
    return permissions.administrator or permissions.manage_guild or permissions.manage_channels


def incoming_from_interaction(interaction: discord.Interaction, command: str | None, text: str) -> Incoming:
    """The engine's view of a slash command: /ask is chat text, the others are commands."""
    return Incoming(
        platform=PLATFORM,
        user_id=str(interaction.user.id),
        chat_id=str(interaction.channel_id),
        text=text,
        user_name=interaction.user.display_name,
        is_group=interaction.guild_id is not None,
        addressed=True,
        command=command,
        message_id=str(interaction.id),
        sender_admin=_manages(interaction.permissions) if interaction.guild_id is not None else None,
    )
