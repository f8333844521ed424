"""Discord attachments → `core.types.Media`; reaction events → feedback.

An image attachment is a photo to read, an audio attachment (a voice message, or an audio file) is
voice, anything else a file the engine answers in one line. The bytes are downloaded from Discord's
CDN (`Attachment.read`) only when the engine asks. A message that addresses Fuzi and replies to a
message with an image carries that image (`quoted=True`). Only the first attachment is read.
"""

from __future__ import annotations

from dataclasses import replace

import discord
import structlog

from adapters.discord.triggers import PLATFORM, bot_role_ids, is_addressed, readable_mentions, strip_mentions
from core.ports import Engine
from core.shown_in import ShownIn
from core.types import Incoming, Media

log = structlog.get_logger(__name__)


def _media(attachment: discord.Attachment, *, quoted: bool = False) -> Media:
    mime = attachment.content_type or ""
    if mime.startswith("image/"):
        kind = "image"
    elif mime.startswith("audio/") or attachment.is_voice_message():
        kind = "voice"
    else:
        kind = "file"
    animated = mime == "image/gif"
    duration = attachment.duration
    return Media(kind, attachment.read, attachment.size, mime, attachment.filename, duration, animated, quoted)  # type: ignore[arg-type]


def media_of(message: discord.Message | None, *, quoted: bool = False) -> tuple[Media, ...]:
    """The first attachment of `message` (stickers as "sticker"), or ()."""
    if message is None:
        return ()
    if message.attachments:
        return (_media(message.attachments[0], quoted=quoted),)
    if message.stickers and not quoted:
        return (Media("sticker", _no_bytes, animated=True),)
    return ()


async def _no_bytes() -> bytes:
    return b""


def with_media(message: discord.Message, incoming: Incoming | None, bot_id: int) -> Incoming | None:
    """`incoming` with the message's attachment (or a quoted image when it addresses Fuzi); an
    addressed message with an attachment and no text becomes an Incoming of its own."""
    own = media_of(message)
    if incoming is None:
        if not own or message.author.bot or not is_addressed(message, bot_id):
            return None
        return _bare(message, bot_id, own)
    if not incoming.addressed or incoming.command is not None:
        return incoming
    if own:
        return replace(incoming, media=own)
    resolved = message.reference.resolved if message.reference is not None else None
    quoted = media_of(resolved, quoted=True) if isinstance(resolved, discord.Message) else ()
    return replace(incoming, media=tuple(m for m in quoted if m.kind in ("image", "voice")))


def _bare(message: discord.Message, bot_id: int, media: tuple[Media, ...]) -> Incoming:
    text = readable_mentions(strip_mentions(message.content, bot_id, bot_role_ids(message, bot_id)), message)
    return Incoming(
        platform=PLATFORM,
        user_id=str(message.author.id),
        chat_id=str(message.channel.id),
        text=text,
        user_name=message.author.display_name,
        is_group=message.guild is not None,
        addressed=True,
        message_id=str(message.id),
        media=media,
    )


async def record_reaction(engine: Engine, event: discord.RawReactionActionEvent, bot_id: int, *, added: bool) -> str:
    """A reaction added on (or taken off) a message: feedback when the message is one of Fuzi's answers."""
    if event.user_id == bot_id or (event.member is not None and event.member.bot):
        return "ignored"
    where = ShownIn(PLATFORM, str(event.channel_id), event.message_id)
    reaction = (event.emoji.name or "") if added else ""
    try:
        return await engine.record_feedback(PLATFORM, f"{PLATFORM}:{event.user_id}", reaction, where=where)
    except Exception as exc:  # feedback is a nicety: logged, the bot runs on
        log.warning("discord_feedback_failed", where=str(where), error=type(exc).__name__)
        return "ignored"
