"""Every Discord message and interaction Fuzi takes kept in the inbox (core/inbox) until it is handled.

Discord never sends a gateway event again: a message or slash command a process took and then died
on would vanish. So each one is written to the inbox (key ``message:<id>`` / ``interaction:<id>``,
platform "discord") before it is handled, and closed when its handling ended, whatever it was. The
inbox's unique key is also what makes two processes connected as one shard answer once. An entry a
dead process left is handed to this module (`inbox_handlers`):

* a message (payload: channel, guild, message id, whether it addressed Fuzi) is fetched again over
  REST (``GET /channels/{c}/messages/{m}``) and answered as if it had just arrived. Whether it was
  addressed is the first process's word (a process on another shard has no cache of the guild).
  Lost (too old): one line replying to it in its channel, for an addressed message only.
* an interaction (payload: application id, token, channel, guild, the person, the command and its
  text, private, a click or not) is answered through its token: the entry is written first and the
  interaction deferred at once after, so a dead process's interaction was all but always deferred,
  and the token lets any process fill that original response and add follow-ups for 15 minutes
  from the interaction. `rebuilt_interaction` is discord.py's own ``Interaction`` for the stored
  token, so the requests are the ones the first process would have made. Where the token no longer
  works (expired, or the process died before it deferred), the answer goes where
  :class:`~adapters.discord.sink.InteractionSink` sends every late answer: the channel, or a DM for
  a private one. Lost: the one line through the token, else in the channel (DM when private).

docs/discord.md ("Nothing lost") says what a crash can still lose.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import discord
import structlog

from adapters.discord.triggers import PLATFORM
from core.inbox import InboxEntry, InboxHandlers
from core.texts import say
from core.types import Incoming

if TYPE_CHECKING:
    from adapters.discord.client import FuziDiscordClient

log = structlog.get_logger(__name__)

__all__ = ["PLATFORM", "inbox_handlers", "interaction_key", "message_key"]


def message_key(message_id: int) -> str:
    return f"message:{message_id}"


def interaction_key(interaction_id: int) -> str:
    return f"interaction:{interaction_id}"


def message_payload(message: discord.Message, incoming: Incoming) -> dict[str, Any]:
    """What another process needs to fetch ``message`` again and answer it as this one would."""
    guild = message.guild.id if message.guild is not None else None
    return {
        "kind": "message",
        "channel": str(message.channel.id),
        "guild": str(guild) if guild is not None else None,
        "message": str(message.id),
        "addressed": incoming.addressed,
    }


def interaction_payload(
    interaction: discord.Interaction, incoming: Incoming, *, kind: str, private: bool, label: str
) -> dict[str, Any]:
    """What another process needs to answer ``interaction`` through its token (module docstring).

    ``kind``: "interaction" (a command or click for the engine) or "passage" (/passage, a look-up).
    """
    return {
        "kind": kind,
        "id": str(interaction.id),
        "type": interaction.type.value,
        "app": str(interaction.application_id),
        "token": interaction.token,
        "channel": incoming.chat_id,
        "group": incoming.is_group,
        "user": incoming.user_id,
        "name": incoming.user_name,
        "admin": incoming.sender_admin,
        "command": incoming.command,
        "text": incoming.text,
        "private": private,
        "click": interaction.type is discord.InteractionType.component,
        "label": label,
    }


def incoming_from_payload(payload: Mapping[str, Any]) -> Incoming:
    """The engine's view of a stored interaction (as `triggers.incoming_from_interaction` built it)."""
    return Incoming(
        platform=PLATFORM,
        user_id=payload["user"],
        chat_id=payload["channel"],
        text=payload["text"],
        user_name=payload["name"],
        is_group=payload["group"],
        addressed=True,
        command=payload["command"],
        message_id=payload["id"],
        sender_admin=payload["admin"],
    )


def rebuilt_interaction(client: discord.Client, payload: Mapping[str, Any]) -> discord.Interaction:
    """discord.py's ``Interaction`` for a stored token: ``edit_original_response``, ``followup`` and
    ``delete_original_response`` send what the first process would have sent; ``user`` can be sent a
    DM. It is built without its guild (this process may not have it) and without a channel: callers
    take ``client.get_partial_messageable(payload["channel"])``. Its ``response`` must not be used
    (the interaction was acknowledged by the process that took it)."""
    raw = {
        "id": payload["id"],
        "application_id": payload["app"],
        "type": payload["type"],
        "token": payload["token"],
        "version": 1,
        "channel_id": payload["channel"],
        "attachment_size_limit": 0,
        "user": {
            "id": payload["user"],
            "username": payload["name"],
            "global_name": payload["name"],
            "discriminator": "0",
            "avatar": None,
        },
    }
    return discord.Interaction(data=cast(Any, raw), state=client._connection)


def token_left_s(entry: InboxEntry, ttl_s: float, now: datetime | None = None) -> float:
    """Seconds the stored interaction's token is still used for (``ttl_s`` from when it was taken)."""
    age_s = ((now or datetime.now(UTC)) - entry.received_at).total_seconds()
    return ttl_s - age_s


def inbox_handlers(client: FuziDiscordClient) -> InboxHandlers:
    """How this client answers the entries a dead process left (module docstring)."""

    async def replay(entry: InboxEntry) -> None:
        if entry.payload.get("kind") == "message":
            client.spawn(client.replay_message(entry), entry)
        else:
            client.spawn(client.interactions.replay(entry), entry)

    async def lost(entry: InboxEntry) -> None:
        p = entry.payload
        if p.get("kind") == "message":
            if p["addressed"]:  # unaddressed chatter: nobody waits for a reply
                reference = discord.MessageReference(
                    message_id=int(p["message"]), channel_id=int(p["channel"]), fail_if_not_exists=False
                )
                channel = client.get_partial_messageable(int(p["channel"]))
                await channel.send(say("LOST", None), reference=reference, mention_author=False)
            return
        await tell_lost_interaction(client, entry)

    return InboxHandlers(replay=replay, lost=lost)


async def tell_lost_interaction(client: FuziDiscordClient, entry: InboxEntry) -> None:
    """The LOST line in the interaction's original response while its token works; else in its
    channel (a DM for a private one)."""
    p, text = entry.payload, say("LOST", None)
    interaction = rebuilt_interaction(client, p)
    if token_left_s(entry, client.interaction_ttl_s) > 0:
        try:
            await interaction.edit_original_response(content=text)
            return
        except discord.HTTPException as exc:
            log.info("discord_lost_token_refused", key=entry.key, status=exc.status)
    target: Any = interaction.user if p["private"] else client.get_partial_messageable(int(p["channel"]))
    await target.send(text)
