"""Telegram photos, image files, stickers, voice and audio → `core.types.Media`; reactions → feedback.

The bytes are fetched through the Bot API (`getFile`, then the file URL) only when the engine asks
(after its size and quota checks): the core never sees a Telegram type. A photo comes in several
sizes; the largest is read. A reply that addresses Fuzi and quotes a photo carries the quoted photo
(`quoted=True`). An album (a media group: up to ten photos sent together) is answered once, for its
first item. Reactions (👍 👎 …) on Fuzi's answers become feedback (`Engine.record_feedback`).
"""

from __future__ import annotations

from datetime import timedelta

import structlog
from telegram import Bot, Message, MessageReactionUpdated, ReactionTypeEmoji

from core.inbox.seen import InMemorySeen, Seen
from core.ports import Engine
from core.shown_in import ShownIn
from core.types import Media, MediaKind

log = structlog.get_logger(__name__)

ALBUM_TTL_S = 120.0  # an album's items arrive within a second or two; remember its id this long


def _fetcher(bot: Bot, file_id: str):
    async def fetch() -> bytes:
        file = await bot.get_file(file_id)
        return bytes(await file.download_as_bytearray())

    return fetch


def media_of(message: Message | None, bot: Bot, *, quoted: bool = False) -> tuple[Media, ...]:
    """What `message` carries besides text, as the core sees it (empty for plain text)."""
    if message is None:
        return ()
    if message.photo:
        largest = message.photo[-1]
        return (Media("image", _fetcher(bot, largest.file_id), largest.file_size, "image/jpeg", quoted=quoted),)
    if message.sticker:
        s = message.sticker
        return (Media("sticker", _fetcher(bot, s.file_id), s.file_size, animated=s.is_animated or s.is_video),)
    if message.animation:
        a = message.animation
        return (Media("image", _fetcher(bot, a.file_id), a.file_size, a.mime_type or "", animated=True),)
    sound = message.voice or message.audio
    if sound is not None:
        name = getattr(sound, "file_name", None) or "voice.ogg"
        seconds = _seconds(sound.duration)
        return (Media("voice", _fetcher(bot, sound.file_id), sound.file_size, sound.mime_type or "", name, seconds),)
    if message.document:
        d = message.document
        kind: MediaKind = "image" if (d.mime_type or "").startswith("image/") else "file"
        return (Media(kind, _fetcher(bot, d.file_id), d.file_size, d.mime_type or "", d.file_name or ""),)
    video = message.video or message.video_note
    if video is not None:
        return (Media("file", _fetcher(bot, video.file_id), video.file_size),)
    return ()


def _seconds(duration: object) -> float | None:
    """A duration as PTB gives it (int seconds, or a timedelta in newer versions)."""
    if isinstance(duration, timedelta):
        return duration.total_seconds()
    return float(duration) if isinstance(duration, int | float) else None


def quoted_media(message: Message, bot: Bot) -> tuple[Media, ...]:
    """The photo (or voice) of the message `message` replies to, when Telegram included it."""
    return tuple(m for m in media_of(message.reply_to_message, bot, quoted=True) if m.kind in ("image", "voice"))


class AlbumGate:
    """Lets the first item of each album through; the other items of the same album are dropped.

    On the `Seen` store the update ids are checked on, so webhook replicas sharing Redis answer an
    album once between them (its items may reach different replicas).
    """

    def __init__(self, seen: Seen | None = None) -> None:
        self._seen = seen or InMemorySeen(max_keys=4096, ttl_s=ALBUM_TTL_S)

    async def first(self, message: Message) -> bool:
        group = message.media_group_id
        if not group or await self._seen.first(f"telegram:album:{message.chat.id}:{group}"):
            return True
        log.info("telegram_album_item_skipped", chat=message.chat.id, media_group=group)
        return False


def reaction_of(update: MessageReactionUpdated) -> str:
    """The emoji a reaction update leaves (the first of the new ones; "" when all were taken back)."""
    for reaction in update.new_reaction:
        if isinstance(reaction, ReactionTypeEmoji):
            return reaction.emoji
    return ""


async def record_reaction(engine: Engine, update: MessageReactionUpdated) -> str:
    """Hand a reaction on a message to the engine as feedback; anonymous reactions are skipped."""
    if update.user is None or update.user.is_bot:
        return "ignored"
    where = ShownIn("telegram", str(update.chat.id), update.message_id)
    try:
        return await engine.record_feedback("telegram", f"telegram:{update.user.id}", reaction_of(update), where=where)
    except Exception as exc:  # feedback is a nicety: a failure is logged, the bot runs on
        log.warning("telegram_feedback_failed", where=str(where), error=type(exc).__name__)
        return "ignored"
