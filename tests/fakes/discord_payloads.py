"""Discord API payloads as discord.py 2.x parses them: users, guilds, channels, messages, interactions.

Every builder returns a fresh dict with all the fields discord.py indexes directly (``data['x']``), so
the fake gateway and REST server in :mod:`tests.fakes.discord_server` can hand them to the real
library. Ids are snowflake strings.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timezone
from typing import Any

_ids = itertools.count(1_300_000_000_000_000_000)

TEXT_CHANNEL = 0
DM_CHANNEL = 1
PUBLIC_THREAD = 11
ALL_PERMISSIONS = str((1 << 50) - 1)


def snowflake() -> str:
    """A new unique snowflake id (string form, as Discord sends them)."""
    return str(next(_ids))


def now_iso() -> str:
    """The current time in Discord's ISO-8601 form."""
    return datetime.now(UTC).isoformat()


def user(user_id: str, name: str, *, bot: bool = False) -> dict[str, Any]:
    """A user object (also what ``GET /users/@me`` answers for the bot)."""
    return {
        "id": user_id,
        "username": name,
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
        "flags": 0,
        "verified": True,
        "mfa_enabled": False,
        "locale": "en-US",
    }


def member(user_obj: dict[str, Any]) -> dict[str, Any]:
    """A guild member wrapping ``user_obj``."""
    return {
        "user": user_obj,
        "roles": [],
        "joined_at": now_iso(),
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "nick": None,
        "avatar": None,
        "permissions": ALL_PERMISSIONS,
    }


def application(app_id: str, owner: dict[str, Any]) -> dict[str, Any]:
    """``GET /oauth2/applications/@me``."""
    return {
        "id": app_id,
        "name": "Fuzi",
        "description": "",
        "icon": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": owner,
        "verify_key": "0" * 64,
        "flags": 0,
        "summary": "",
        "team": None,
        "rpc_origins": [],
    }


def text_channel(channel_id: str, guild_id: str, name: str = "general") -> dict[str, Any]:
    """A guild text channel."""
    return {
        "id": channel_id,
        "type": TEXT_CHANNEL,
        "guild_id": guild_id,
        "name": name,
        "position": 0,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "flags": 0,
    }


def thread(thread_id: str, guild_id: str, parent_id: str, owner_id: str, name: str = "fuzi") -> dict[str, Any]:
    """A public thread in ``parent_id``, started by ``owner_id``."""
    return {
        "id": thread_id,
        "type": PUBLIC_THREAD,
        "guild_id": guild_id,
        "parent_id": parent_id,
        "owner_id": owner_id,
        "name": name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "flags": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": now_iso(),
            "locked": False,
            "invitable": True,
            "create_timestamp": now_iso(),
        },
    }


def role(role_id: str, name: str, *, position: int = 0, bot_id: str | None = None) -> dict[str, Any]:
    """A guild role; with ``bot_id`` the bot's managed integration role."""
    data: dict[str, Any] = {
        "id": role_id,
        "name": name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "position": position,
        "permissions": ALL_PERMISSIONS,
        "managed": bot_id is not None,
        "mentionable": False,
        "flags": 0,
    }
    if bot_id is not None:
        data["tags"] = {"bot_id": bot_id}
    return data


def guild(
    guild_id: str, bot_user: dict[str, Any], channels: list[dict], threads: list[dict], roles: list[dict]
) -> dict[str, Any]:
    """A full GUILD_CREATE payload with the bot as the only member; ``roles`` after @everyone."""
    return {
        "id": guild_id,
        "name": "Fuzi test guild",
        "icon": None,
        "owner_id": bot_user["id"],
        "unavailable": False,
        "member_count": 1,
        "large": False,
        "features": [],
        "roles": [role(guild_id, "@everyone"), *roles],
        "emojis": [],
        "stickers": [],
        "channels": channels,
        "threads": threads,
        "members": [member(bot_user)],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "preferred_locale": "en-US",
        "joined_at": now_iso(),
        "system_channel_flags": 0,
    }


def message(
    *,
    message_id: str,
    channel_id: str,
    author: dict[str, Any],
    content: str,
    guild_id: str | None = None,
    mentions: list[dict[str, Any]] | None = None,
    reference: dict[str, Any] | None = None,
    referenced: dict[str, Any] | None = None,
    mention_roles: list[str] | None = None,
    webhook_id: str | None = None,
    flags: int = 0,
) -> dict[str, Any]:
    """A message object, as MESSAGE_CREATE and every message-returning REST call carry it."""
    data: dict[str, Any] = {
        "id": message_id,
        "type": 19 if reference else 0,
        "channel_id": channel_id,
        "author": author,
        "content": content,
        "timestamp": now_iso(),
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": mentions or [],
        "mention_roles": mention_roles or [],
        "attachments": [],
        "embeds": [],
        "reactions": [],
        "pinned": False,
        "flags": flags,
        "components": [],
    }
    if guild_id is not None:
        data["guild_id"] = guild_id
        data["member"] = {k: v for k, v in member(author).items() if k != "user"}
    if reference is not None:
        data["message_reference"] = reference
    if referenced is not None:
        data["message_reference"] = {"message_id": referenced["id"], "channel_id": channel_id, "guild_id": guild_id}
        data["referenced_message"] = referenced
        data["type"] = 19
    if webhook_id is not None:
        data["webhook_id"] = webhook_id
    return data


def slash_interaction(
    *,
    interaction_id: str,
    token: str,
    app_id: str,
    command_name: str,
    options: dict[str, Any],
    invoker: dict[str, Any],
    channel: dict[str, Any],
    guild_id: str | None,
) -> dict[str, Any]:
    """An INTERACTION_CREATE for a chat-input (slash) command with string options."""
    data: dict[str, Any] = {
        "id": snowflake(),
        "name": command_name,
        "type": 1,
        "options": [{"name": k, "type": 3, "value": v} for k, v in options.items()],
    }
    if guild_id is not None:
        data["guild_id"] = guild_id
    return _interaction(2, data, interaction_id, token, app_id, invoker, channel, guild_id)


def button_interaction(
    *,
    interaction_id: str,
    token: str,
    app_id: str,
    custom_id: str,
    message: dict[str, Any],
    invoker: dict[str, Any],
    channel: dict[str, Any],
    guild_id: str | None,
) -> dict[str, Any]:
    """An INTERACTION_CREATE for a click on a button of ``message``."""
    data = {"custom_id": custom_id, "component_type": 2}
    payload = _interaction(3, data, interaction_id, token, app_id, invoker, channel, guild_id)
    payload["message"] = message
    return payload


def _interaction(
    kind: int,
    data: dict[str, Any],
    interaction_id: str,
    token: str,
    app_id: str,
    invoker: dict[str, Any],
    channel: dict[str, Any],
    guild_id: str | None,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": interaction_id,
        "application_id": app_id,
        "type": kind,
        "data": data,
        "channel_id": channel["id"],
        "channel": channel,
        "token": token,
        "version": 1,
        "app_permissions": ALL_PERMISSIONS,
        "locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {"0": guild_id or invoker["id"]},
        "context": 0 if guild_id else 1,
        "attachment_size_limit": 8 * 1024 * 1024,
    }
    if guild_id is not None:
        payload["guild_id"] = guild_id
        payload["guild_locale"] = "en-US"
        payload["member"] = member(invoker)
    else:
        payload["user"] = invoker
    return payload
