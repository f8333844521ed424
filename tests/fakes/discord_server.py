"""A fake Discord (gateway + REST) on 127.0.0.1 that the real discord.py 2.x client talks to.

One aiohttp server serves both: the REST API under ``/api/v10`` and the gateway websocket under
``/gateway`` (text JSON frames, no compression). Point discord.py at it with ``base_url`` and
``gateway_url``. The gateway speaks HELLO → IDENTIFY → READY + GUILD_CREATE, answers heartbeats with
ACKs, accepts RESUME after a drop, and dispatches MESSAGE_CREATE / INTERACTION_CREATE on demand.
Sharding: ``FakeDiscord(guilds=N)`` makes N guilds whose ids put guild k on shard k of N
(``(guild_id >> 22) % N``, Discord's rule); each connection's IDENTIFY names its shard, READY lists
the guilds of that shard, and an event reaches every connection of its guild's shard (DMs: shard 0),
so two processes connected as the same shard both receive it, as on Discord. REST
covers what Fuzi uses: users/@me, applications/@me, gateway(/bot), command sync (PUT), interaction
callbacks, webhook edits and follow-ups, channel messages (POST/PATCH), typing and threads.

Every REST request is recorded (:attr:`FakeDiscord.requests`); :meth:`FakeDiscord.fail_next` queues
error answers, e.g. a rate limit: a 429 carries a ``Via`` header and a JSON ``retry_after`` (without
them discord.py assumes a Cloudflare ban). JSON answers use ``Content-Type: application/json`` exactly.

Usage::

    async def test_x(fake_discord):
        fake_discord.fail_next("PATCH", r"/messages/@original", status=429, retry_after=0.3)
        inter = await fake_discord.slash("ask", {"question": "何为君子"})
        await fake_discord.wait_for(lambda r: r.method == "POST" and "/webhooks/" in r.path)
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest_asyncio
from aiohttp import WSMsgType, web

from tests.fakes import discord_payloads as p
from tests.fakes.discord_rest import DiscordRestRoutes, FailRule, Recorded, public_message  # noqa: F401 (re-exported)

API_PREFIX = "/api/v10"


def snowflake_on_shard(shard: int, count: int) -> str:
    """A new snowflake whose guild would live on ``shard`` of ``count``."""
    base = int(p.snowflake()) >> 22
    return str((((base // count + 1) * count + shard) << 22) | 1)


@dataclass
class _Connection:
    ws: web.WebSocketResponse
    shard: tuple[int, int] | None = None  # (id, count) from IDENTIFY/RESUME; None before
    seq: int = 0
    session: str = ""


@dataclass
class GatewayLog:
    """What happened on the gateway: connections, identifies, resumes, heartbeats."""

    connections: int = 0
    identifies: list[dict] = field(default_factory=list)
    resumes: list[dict] = field(default_factory=list)
    heartbeats: int = 0


class FakeDiscord(DiscordRestRoutes):
    """Fake Discord gateway + REST for one bot, one guild with one text channel, and one human user.

    Attributes:
        requests: every REST request in arrival order.
        gateway: the gateway log.
        messages: channel and webhook messages by id (their current state after edits).
    """

    def __init__(self, *, heartbeat_interval_ms: int = 100, guilds: int = 1) -> None:
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.app_id = p.snowflake()
        self.bot_user = p.user(self.app_id, "Fuzi", bot=True)
        self.human = p.user(p.snowflake(), "yan_hui")
        ids = [snowflake_on_shard(k, guilds) for k in range(guilds)] if guilds > 1 else [p.snowflake()]
        self.guild_channels = {gid: p.text_channel(p.snowflake(), gid) for gid in ids}  # one text channel each
        self.guild_id = ids[0]
        self.channel = self.guild_channels[self.guild_id]
        self.threads: list[dict] = []
        self.bot_role = p.role(p.snowflake(), "Fuzi", position=1, bot_id=self.app_id)
        self.requests: list[Recorded] = []
        self.gateway = GatewayLog()
        self.messages: dict[str, dict] = {}
        self.history: dict[str, dict] = {}  # the human's messages, readable with GET (quoted replies)
        self.autocompletes: list[list[dict]] = []  # choices the bot answered to autocomplete interactions
        self.attachments: dict[str, bytes] = {}  # the CDN (tests/fakes/discord_media.py fills it)
        self._rules: list[FailRule] = []
        self._token_channel: dict[str, str] = {}
        self._clicked: dict[str, str] = {}  # interaction token -> id of the message clicked
        self._pending: list[asyncio.Future] = []
        self.dm_channel_id = p.snowflake()
        self._connections: list[_Connection] = []
        self._ws: web.WebSocketResponse | None = None  # the newest connection
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ----------------------------------------------------------------- lifecycle

    @property
    def base_url(self) -> str:
        """REST base, the value for ``discord.http.Route.BASE``."""
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        """Gateway websocket URL."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> None:
        """Bind a free port on 127.0.0.1 and start serving."""
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{name}", self._cdn)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        """Close the gateway and the server."""
        for conn in self._connections:
            if not conn.ws.closed:
                await conn.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # ----------------------------------------------------------------- test controls

    def fail_next(
        self, method: str, pattern: str, *, status: int = 429, retry_after: float = 0.2, count: int = 1
    ) -> None:
        """Answer the next ``count`` matching requests with ``status`` (429s carry Via + retry_after)."""
        self._rules.append(FailRule(method.upper(), re.compile(pattern), status, retry_after, count))

    async def wait_for(
        self, predicate: Callable[[Recorded], bool], *, count: int = 1, timeout: float = 10.0
    ) -> list[Recorded]:
        """Wait until ``count`` recorded requests match ``predicate``; return them."""

        def matches() -> list[Recorded]:
            return [r for r in self.requests if predicate(r)]

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: len(matches()) >= count), timeout)
        return matches()

    async def wait_until(self, condition: Callable[[], bool], *, timeout: float = 10.0) -> None:
        """Wait until ``condition()`` holds; it is re-checked on every request and gateway frame."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(condition), timeout)

    def calls(self, method: str, pattern: str) -> list[Recorded]:
        """Recorded requests with this method whose path matches ``pattern``."""
        rx = re.compile(pattern)
        return [r for r in self.requests if r.method == method.upper() and rx.search(r.path)]

    def add_thread(self, owner_id: str | None = None) -> dict:
        """Register a thread under the channel (started by the bot unless ``owner_id``); before READY."""
        data = p.thread(p.snowflake(), self.guild_id, self.channel["id"], owner_id or self.app_id)
        self.threads.append(data)
        return data

    async def dispatch(self, event: str, data: dict) -> None:
        """Send a DISPATCH frame (op 0) to every connection of the shard owning ``data``'s guild."""
        guild = data.get("guild_id")
        targets = [c for c in self._connections if not c.ws.closed and c.shard and self._owns(c.shard, guild)]
        assert targets, f"no gateway connection for guild {guild}"
        for conn in targets:
            await self._send(conn, event, data)

    @staticmethod
    def _owns(shard: tuple[int, int], guild_id: str | None) -> bool:
        shard_id, count = shard
        return (int(guild_id) >> 22) % count == shard_id if guild_id else shard_id == 0

    async def _send(self, conn: _Connection, event: str, data: dict) -> None:
        conn.seq += 1
        await conn.ws.send_str(json.dumps({"op": 0, "t": event, "s": conn.seq, "d": data}))

    def identified_shards(self) -> list[tuple[int, int]]:
        """The shards of the open, identified connections."""
        return [c.shard for c in self._connections if c.shard and not c.ws.closed]

    async def user_message(
        self,
        content: str,
        *,
        channel_id: str | None = None,
        dm: bool = False,
        mention_bot: bool = False,
        mention_role: bool = False,
        reply_to: dict | None = None,
        others: list[dict] | None = None,
        guild: str | None = None,
        reference_only: bool = False,
        author: dict | None = None,
    ) -> dict:
        """Dispatch MESSAGE_CREATE from the human.

        ``mention_bot`` / ``mention_role`` prefix ``<@bot>`` / ``<@&bot role>`` and list the mention;
        ``reply_to`` (a message dict) makes it a reply without a ping; ``others`` are further mentioned
        users (their ``<@id>`` belongs in ``content``); ``guild``: in that guild's channel (default the first).
        """
        if mention_bot:
            content = f"<@{self.app_id}> {content}"
        if mention_role:
            content = f"<@&{self.bot_role['id']}> {content}"
        guild_id = None if dm else (guild or self.guild_id)
        channel = channel_id or (self.dm_channel_id if dm or guild_id is None else self.guild_channels[guild_id]["id"])
        # a referenced message never carries its own referenced_message (Discord sends one level)
        nested = {k: v for k, v in public_message(reply_to).items() if k != "referenced_message"} if reply_to else None
        data = p.message(
            message_id=p.snowflake(),
            channel_id=channel,
            author=author or self.human,
            content=content,
            guild_id=guild_id,
            mentions=([self.bot_user] if mention_bot else []) + (others or []),
            mention_roles=[self.bot_role["id"]] if mention_role else [],
            referenced=nested if reply_to and not reference_only else None,
            reference={"message_id": reply_to["id"], "channel_id": channel, "guild_id": guild_id, "type": 0}
            if reply_to and reference_only
            else None,
        )
        self.history[data["id"]] = data
        await self.dispatch("MESSAGE_CREATE", data)
        return data

    async def autocomplete(self, name: str, option: str, value: str) -> dict:
        """Dispatch an APPLICATION_COMMAND_AUTOCOMPLETE interaction: ``/name`` with ``option`` being typed."""
        data = p.slash_interaction(
            interaction_id=p.snowflake(),
            token=f"tok-{p.snowflake()}",
            app_id=self.app_id,
            command_name=name,
            options={},
            invoker=self.human,
            channel=self.channel,
            guild_id=self.guild_id,
        )
        data["type"] = 4
        data["data"]["options"] = [{"name": option, "type": 3, "value": value, "focused": True}]
        await self.dispatch("INTERACTION_CREATE", data)
        return data

    async def slash(
        self,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        dm: bool = False,
        subcommand: str | None = None,
        permissions: str | None = None,
        guild: str | None = None,
    ) -> dict:
        """Dispatch INTERACTION_CREATE for ``/name`` in the guild channel (or a DM).

        ``subcommand``: ``/name subcommand options…`` (a command group); ``permissions``: the invoker's
        resolved permission bits in the channel (default: all).
        """
        guild_id = guild or self.guild_id
        channel = {"id": self.dm_channel_id, "type": p.DM_CHANNEL} if dm else self.guild_channels[guild_id]
        data = p.slash_interaction(
            interaction_id=p.snowflake(),
            token=f"tok-{p.snowflake()}",
            app_id=self.app_id,
            command_name=name,
            options=options or {},
            invoker=self.human,
            channel=channel,
            guild_id=None if dm else guild_id,
        )
        if subcommand is not None:
            data["data"]["options"] = [{"name": subcommand, "type": 1, "options": data["data"]["options"]}]
        if permissions is not None and "member" in data:
            data["member"]["permissions"] = permissions
        self._token_channel[data["token"]] = channel["id"]
        await self.dispatch("INTERACTION_CREATE", data)
        return data

    async def click(self, message: dict, custom_id: str, *, by: dict | None = None) -> dict:
        """Dispatch INTERACTION_CREATE for the human (or the user ``by``, see ``payloads.user``)
        clicking button ``custom_id`` on ``message``."""
        channel = (
            self.channel
            if message["channel_id"] == self.channel["id"]
            else {"id": message["channel_id"], "type": p.DM_CHANNEL}
        )
        data = p.button_interaction(
            interaction_id=p.snowflake(),
            token=f"tok-{p.snowflake()}",
            app_id=self.app_id,
            custom_id=custom_id,
            message=public_message(message),
            invoker=by or self.human,
            channel=channel,
            guild_id=message.get("guild_id"),
        )
        self._token_channel[data["token"]] = message["channel_id"]
        self._clicked[data["token"]] = (
            message["id"] if message["id"] in self.messages else f"original:{message['_token']}"
        )
        await self.dispatch("INTERACTION_CREATE", data)
        return data

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close the gateway connection as Discord does on a server-side drop."""
        assert self._ws is not None
        await self._ws.close(code=code)

    def original(self, token: str) -> dict | None:
        """The current original response of an interaction, or None."""
        return self.messages.get(f"original:{token}")

    def followups(self, token: str) -> list[dict]:
        """Follow-up messages of an interaction, in creation order."""
        return [
            m for k, m in self.messages.items() if k == m["id"] and m.get("_token") == token and not m.get("_original")
        ]

    def channel_messages(self, channel_id: str) -> list[dict]:
        """Bot messages created in a channel (not via webhooks), in creation order."""
        return [
            m for k, m in self.messages.items() if k == m["id"] and m["channel_id"] == channel_id and "_token" not in m
        ]

    # ----------------------------------------------------------------- gateway

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._ws = ws
        conn = _Connection(ws)
        self._connections.append(conn)
        self.gateway.connections += 1
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}}))
        async for frame in ws:
            if frame.type is WSMsgType.TEXT:
                await self._on_gateway_frame(conn, json.loads(frame.data))
        await self._notify()
        return ws

    async def _on_gateway_frame(self, conn: _Connection, frame: dict) -> None:
        op = frame.get("op")
        if op == 1:
            self.gateway.heartbeats += 1
            await conn.ws.send_str(json.dumps({"op": 11}))
        elif op == 2:
            self.gateway.identifies.append(frame["d"])
            conn.shard = tuple(frame["d"].get("shard") or (0, 1))  # type: ignore[assignment]
            await self._send_ready(conn)
        elif op == 6:
            self.gateway.resumes.append(frame["d"])
            session = frame["d"].get("session_id")
            previous = next((c for c in self._connections if c.session == session and c is not conn), None)
            conn.shard, conn.session = (previous.shard, session) if previous else ((0, 1), session)
            conn.seq = previous.seq if previous else 0
            await self._send(conn, "RESUMED", {})
        await self._notify()

    async def _send_ready(self, conn: _Connection) -> None:
        assert conn.shard is not None
        mine = [gid for gid in self.guild_channels if self._owns(conn.shard, gid)]
        conn.session = f"session-{len(self.gateway.identifies)}"
        ready = {
            "v": 10,
            "user": self.bot_user,
            "guilds": [{"id": gid, "unavailable": True} for gid in mine],
            "session_id": conn.session,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": self.app_id, "flags": 0},
            "shard": list(conn.shard),
            "private_channels": [],
            "relationships": [],
        }
        await self._send(conn, "READY", ready)
        for gid in mine:
            threads = self.threads if gid == self.guild_id else []
            guild = p.guild(gid, self.bot_user, [self.guild_channels[gid]], threads, [self.bot_role])
            await self._send(conn, "GUILD_CREATE", guild)

    # ----------------------------------------------------------------- REST entry (handlers: discord_rest)

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        raw = await request.read()
        body = json.loads(raw) if raw and request.content_type == "application/json" else None
        rec = Recorded(request.method, path, dict(request.query), body)
        self.requests.append(rec)
        response = self._failure(rec) or self._route(rec)
        rec.status = response.status
        await self._notify()
        return response

    async def _cdn(self, request: web.Request) -> web.Response:
        """An attachment's URL, as Discord's CDN serves it."""
        self.requests.append(Recorded("GET", request.path, {}, None))
        data = self.attachments.get(request.match_info["name"])
        return web.Response(body=data) if data is not None else web.Response(status=404)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()


@pytest_asyncio.fixture
async def fake_discord():
    """A started :class:`FakeDiscord`; stopped after the test."""
    server = FakeDiscord()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
