"""Messages with attachments and reaction events for the fake Discord (tests/fakes/discord_server.py).

Attachments are served by the fake's CDN route (`/attachments/<name>`), which `Attachment.read()`
downloads like the real one; voice messages carry `duration_secs` and the IS_VOICE_MESSAGE flag.
"""

from __future__ import annotations

from typing import Any

from tests.fakes import discord_payloads as p
from tests.fakes.discord_server import FakeDiscord

VOICE_MESSAGE_FLAG = 1 << 13


def attachment(fake: FakeDiscord, data: bytes, filename: str, content_type: str, **extra: Any) -> dict:
    """An attachment object whose URL the fake serves."""
    aid = p.snowflake()
    name = f"{aid}-{filename}"
    fake.attachments[name] = data
    url = f"http://127.0.0.1:{fake.port}/attachments/{name}"
    return {
        "id": aid,
        "filename": filename,
        "size": len(data),
        "url": url,
        "proxy_url": url,
        "content_type": content_type,
        **extra,
    }


async def message_with(
    fake: FakeDiscord,
    content: str,
    attachments: list[dict],
    *,
    dm: bool = False,
    mention_bot: bool = False,
    reply_to: dict | None = None,
    voice: bool = False,
) -> dict:
    """Dispatch MESSAGE_CREATE from the human with `attachments` (and optional text, mention, reply)."""
    if mention_bot:
        content = f"<@{fake.app_id}> {content}".strip()
    data = p.message(
        message_id=p.snowflake(),
        channel_id=fake.dm_channel_id if dm else fake.channel["id"],
        author=fake.human,
        content=content,
        guild_id=None if dm else fake.guild_id,
        mentions=[fake.bot_user] if mention_bot else [],
        referenced=reply_to,
        flags=VOICE_MESSAGE_FLAG if voice else 0,
    )
    data["attachments"] = attachments
    await fake.dispatch("MESSAGE_CREATE", data)
    return data


async def react(
    fake: FakeDiscord, message: dict, emoji: str, *, added: bool = True, user_id: str | None = None
) -> None:
    """Dispatch MESSAGE_REACTION_ADD (or _REMOVE) by the human on `message`."""
    data: dict[str, Any] = {
        "user_id": user_id or fake.human["id"],
        "channel_id": message["channel_id"],
        "message_id": message["id"],
        "emoji": {"id": None, "name": emoji},
        "type": 0,
        "burst": False,
    }
    if message.get("guild_id"):
        data["guild_id"] = message["guild_id"]
    await fake.dispatch("MESSAGE_REACTION_ADD" if added else "MESSAGE_REACTION_REMOVE", data)
