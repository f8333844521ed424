"""REST half of the fake Discord: routes, handlers and the message store (see discord_server)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes import discord_payloads as p


@dataclass
class Recorded:
    """One REST request the fake received."""

    method: str
    path: str  # without the /api/v10 prefix
    query: dict[str, str]
    body: Any
    at: float = field(default_factory=time.monotonic)
    status: int = 200


@dataclass
class FailRule:
    """Answer the next ``count`` requests matching ``method`` and ``pattern`` with an error."""

    method: str
    pattern: re.Pattern
    status: int
    retry_after: float
    count: int


class DiscordRestRoutes:
    """REST handlers mixed into :class:`tests.fakes.discord_server.FakeDiscord`, which owns the state
    they use (``requests``, ``messages``, ``threads``, ids, …)."""

    messages: dict[str, dict]
    history: dict[str, dict]
    autocompletes: list[list[dict]]
    threads: list[dict]
    guild_channels: dict[str, dict]

    def _failure(self, rec: Recorded) -> web.Response | None:
        for rule in self._rules:
            if rule.count > 0 and rule.method == rec.method and rule.pattern.search(rec.path):
                rule.count -= 1
                if rule.status == 429:
                    body = {"message": "You are being rate limited.", "retry_after": rule.retry_after, "global": False}
                    return json_response(body, 429, {"Via": "1.1 google", "Retry-After": str(rule.retry_after)})
                return json_response({"message": "fake failure", "code": 0}, rule.status)
        return None

    def _route(self, rec: Recorded) -> web.Response:
        for method, pattern, handler in self._routes():
            match = re.fullmatch(pattern, rec.path)
            if method == rec.method and match:
                return handler(rec, *match.groups())
        return json_response({"message": "404: Not Found", "code": 0}, 404)

    def _routes(self) -> list[tuple[str, str, Callable[..., web.Response]]]:
        return [
            ("GET", r"/users/@me", lambda r: json_response(self.bot_user)),
            ("GET", r"/oauth2/applications/@me", lambda r: json_response(p.application(self.app_id, self.human))),
            ("GET", r"/gateway(?:/bot)?", self._get_gateway),
            ("PUT", r"/applications/(\d+)(?:/guilds/\d+)?/commands", self._put_commands),
            ("POST", r"/interactions/(\d+)/([^/]+)/callback", self._callback),
            ("PATCH", r"/webhooks/\d+/([^/]+)/messages/@original", self._edit_original),
            ("GET", r"/webhooks/\d+/([^/]+)/messages/@original", lambda r, t: json_response(self.original(t) or {})),
            ("POST", r"/webhooks/\d+/([^/]+)", self._followup),
            ("PATCH", r"/webhooks/\d+/([^/]+)/messages/(\d+)", self._edit_followup),
            ("POST", r"/channels/(\d+)/messages", self._create_message),
            ("PATCH", r"/channels/(\d+)/messages/(\d+)", self._edit_message),
            ("GET", r"/channels/(\d+)/messages/(\d+)", self._get_message),
            ("POST", r"/channels/(\d+)/typing", lambda r, c: web.Response(status=204)),
            ("POST", r"/channels/(\d+)/messages/(\d+)/threads", self._start_thread),
            ("POST", r"/users/@me/channels", self._open_dm),
        ]

    def _get_gateway(self, rec: Recorded) -> web.Response:
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": self.gateway_url, "shards": 1, "session_start_limit": limit})

    def _put_commands(self, rec: Recorded, app_id: str) -> web.Response:
        out = []
        for cmd in rec.body or []:
            out.append(
                {
                    **cmd,
                    "id": p.snowflake(),
                    "application_id": app_id,
                    "version": p.snowflake(),
                    "default_member_permissions": None,
                    "dm_permission": True,
                    "nsfw": False,
                }
            )
        return json_response(out)

    def _get_message(self, rec: Recorded, channel_id: str, message_id: str) -> web.Response:
        msg = self.messages.get(message_id) or self.history.get(message_id)
        if msg is None or msg["channel_id"] != channel_id:
            return json_response({"message": "Unknown Message", "code": 10008}, 404)
        return json_response(public_message(msg))

    def _callback(self, rec: Recorded, interaction_id: str, token: str) -> web.Response:
        kind = rec.body["type"]
        data = rec.body.get("data") or {}
        if kind == 8:  # APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
            self.autocompletes.append(data.get("choices", []))
            return web.Response(status=204)
        if kind in (6, 7):  # (deferred) update of the clicked message: it becomes the original
            msg = self.messages[f"original:{token}"] = self.messages[self._clicked[token]]
        else:
            msg = self._store(token, "", original=True, flags=data.get("flags", 0))
        if kind in (4, 7):
            self._apply_edit(msg, data)
        msg["_callback_type"] = kind
        response = {
            "interaction": {
                "id": interaction_id,
                "type": 2,
                "response_message_id": msg["id"],
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(data.get("flags", 0) & 64),
            },
            "resource": {"type": kind, "message": public_message(msg)},
        }
        return json_response(response)

    def _edit_original(self, rec: Recorded, token: str) -> web.Response:
        msg = self.original(token)
        if msg is None:
            return json_response({"message": "Unknown Webhook", "code": 10015}, 404)
        return self._apply_edit(msg, rec.body)

    def _followup(self, rec: Recorded, token: str) -> web.Response:
        flags = (rec.body or {}).get("flags", 0)
        msg = self._store(token, (rec.body or {}).get("content", ""), original=False, flags=flags)
        msg["components"] = (rec.body or {}).get("components", [])
        return json_response(public_message(msg))

    def _edit_followup(self, rec: Recorded, token: str, message_id: str) -> web.Response:
        return self._apply_edit(self.messages[message_id], rec.body)

    def _create_message(self, rec: Recorded, channel_id: str) -> web.Response:
        body = rec.body or {}
        msg = p.message(
            message_id=p.snowflake(),
            channel_id=channel_id,
            author=self.bot_user,
            content=body.get("content", ""),
            guild_id=self._guild_of(channel_id),
            reference=body.get("message_reference"),
        )
        msg["components"] = body.get("components", [])
        self.messages[msg["id"]] = msg
        return json_response(msg)

    def _edit_message(self, rec: Recorded, channel_id: str, message_id: str) -> web.Response:
        msg = self.messages.get(message_id)
        if msg is None:
            return json_response({"message": "Unknown Message", "code": 10008}, 404)
        return self._apply_edit(msg, rec.body)

    def _start_thread(self, rec: Recorded, channel_id: str, message_id: str) -> web.Response:
        data = p.thread(p.snowflake(), self.guild_id, channel_id, self.app_id, (rec.body or {}).get("name", "fuzi"))
        self.threads.append(data)
        self._pending.append(asyncio.ensure_future(self.dispatch("THREAD_CREATE", {**data, "newly_created": True})))
        return json_response(data)

    def _open_dm(self, rec: Recorded) -> web.Response:
        recipient = self.human if (rec.body or {}).get("recipient_id") == self.human["id"] else self.bot_user
        return json_response(
            {"id": self.dm_channel_id, "type": p.DM_CHANNEL, "recipients": [recipient], "last_message_id": None}
        )

    # ----------------------------------------------------------------- message store

    def _store(self, token: str, content: str, *, original: bool, flags: int) -> dict:
        channel_id = self._token_channel.get(token, self.channel["id"])
        msg = p.message(
            message_id=p.snowflake(),
            channel_id=channel_id,
            author=self.bot_user,
            content=content,
            guild_id=self._guild_of(channel_id),
            webhook_id=self.app_id,
            flags=flags,
        )
        msg["_token"] = token
        msg["_original"] = original
        self.messages[f"original:{token}" if original else msg["id"]] = msg
        return msg

    def _apply_edit(self, msg: dict, body: dict | None) -> web.Response:
        for key in ("content", "components"):
            if body and key in body:
                msg[key] = body[key]
                msg["edited_timestamp"] = p.now_iso()
        return json_response(public_message(msg))

    def _guild_of(self, channel_id: str) -> str | None:
        if channel_id in {t["id"] for t in self.threads}:
            return self.guild_id
        return next((gid for gid, channel in self.guild_channels.items() if channel["id"] == channel_id), None)


def public_message(msg: dict) -> dict:
    """A stored message without the fake's bookkeeping keys."""
    return {k: v for k, v in msg.items() if not k.startswith("_")}


def json_response(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON answer with Content-Type exactly ``application/json`` (what discord.py checks)."""
    response = web.Response(body=json.dumps(obj).encode(), status=status, headers=headers)
    response.headers["Content-Type"] = "application/json"
    return response
