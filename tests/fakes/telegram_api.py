"""A fake Telegram Bot API on 127.0.0.1 for python-telegram-bot, spoken over real HTTP.

``POST /bot<token>/<method>`` with a form-encoded or JSON body answers ``{"ok": true, "result": …}``
or ``{"ok": false, "error_code": …, "description": …, "parameters": {"retry_after": n}}``.

It serves scripted updates through ``getUpdates`` (long polling with ``offset``/``timeout``), keeps
the messages the bot sent (``sendMessage``, ``editMessageText``) with their visible text after
parsing ``parse_mode=HTML`` the way Telegram does (unknown or unbalanced tags and bare ``<``/``&``
are rejected with "can't parse entities"), answers "message is not modified" for a no-op edit, and
records every call with a timestamp. On demand: 429 with ``retry_after`` for chosen calls, parse
rejection, or Telegram's published flood limits (see :class:`FloodLimits`) for benchmarks.

Usage::

    async with FakeTelegram() as tg:
        tg.private_text(chat_id=1, text="学而时习之")
        ...  # PTB Application with base_url=tg.base_url
        await tg.wait_for(lambda: tg.messages_in(1))
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import socket
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from html import unescape
from typing import Any

from aiohttp import web

from tests.fakes.loopback import LoopbackServer
from tests.fakes.telegram_shapes import chat_member, inline_query

BOT_ID = 777000111
BOT_USERNAME = "FuziTestBot"
TOKEN = "123456:TEST-token"
JSON_FIELDS = {
    "reply_markup",
    "entities",
    "commands",
    "scope",
    "reply_parameters",
    "link_preview_options",
    "allowed_updates",
}
CHAT_METHODS = {"sendMessage", "editMessageText", "sendChatAction", "editMessageReplyMarkup", "deleteMessage"}
ALLOWED_TAGS = {
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "a",
    "code",
    "pre",
    "blockquote",
    "tg-spoiler",
    "span",
    "tg-emoji",
}
_TOKEN = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-z-]+(?:=\"[^\"]*\"|='[^']*'|=[^\s>]+)?)*)\s*>|&(#\d+|#x[0-9a-fA-F]+|lt|gt|amp|quot);|[<&]"
)


class ParseError(ValueError):
    """The HTML would be rejected by Telegram."""


def parse_html(source: str) -> str:
    """Visible text of a Telegram HTML message; raises ParseError like the real API would."""
    out, stack, pos = [], [], 0
    for m in _TOKEN.finditer(source):
        out.append(source[pos : m.start()])
        pos = m.end()
        token = m.group(0)
        if token in ("<", "&"):
            raise ParseError(f"Can't parse entities: unsupported start tag or entity at byte offset {m.start()}")
        if token.startswith("&"):
            out.append(unescape(token))
        elif m.group(1):
            if not stack or stack[-1] != m.group(2).lower():
                raise ParseError(
                    f"Can't parse entities: can't find end tag corresponding to start tag \"{m.group(2)}\""
                )
            stack.pop()
        else:
            if m.group(2).lower() not in ALLOWED_TAGS:
                raise ParseError(f'Can\'t parse entities: unsupported start tag "{m.group(2)}"')
            stack.append(m.group(2).lower())
    if stack:
        raise ParseError(f"Can't parse entities: can't find end tag corresponding to start tag \"{stack[-1]}\"")
    out.append(source[pos:])
    return "".join(out)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass
class Call:
    """One request the bot made: method, decoded params, arrival time, answer status."""

    method: str
    params: dict
    t: float
    status: int = 200

    @property
    def chat_id(self) -> int | None:
        value = self.params.get("chat_id")
        return int(value) if value is not None else None


@dataclass
class SentMessage:
    """A message the bot sent, as Telegram shows it now."""

    chat_id: int
    message_id: int
    text: str  # visible text
    source: str  # what the bot sent
    parse_mode: str | None
    reply_markup: dict | None
    reply_to: int | None
    edits: int = 0
    history: list[str] = field(default_factory=list)


@dataclass
class FloodLimits:
    """Telegram's published limits, enforced with 429s: per chat, per group, overall."""

    per_chat_interval: float = 1.0
    group_per_minute: int = 20
    overall_per_second: int = 30


class _FloodGate:
    def __init__(self, limits: FloodLimits) -> None:
        self.limits = limits
        self.last_by_chat: dict[int, float] = {}
        self.group_times: dict[int, deque] = {}
        self.overall: deque = deque()
        self.refused: dict[str, int] = {"chat": 0, "group": 0, "overall": 0}  # 429s by the limit they hit

    def check(self, chat_id: int, now: float) -> float | None:
        """None if allowed (and counted), else the retry_after in seconds."""
        waits = []
        last = self.last_by_chat.get(chat_id)
        if last is not None and now - last < self.limits.per_chat_interval:
            waits.append(self.limits.per_chat_interval - (now - last))
            self.refused["chat"] += 1
        overall = self.overall
        while overall and now - overall[0] >= 1.0:
            overall.popleft()
        if len(overall) >= self.limits.overall_per_second:
            waits.append(1.0 - (now - overall[0]))
            self.refused["overall"] += 1
        group = self.group_times.setdefault(chat_id, deque()) if chat_id < 0 else None
        if group is not None:
            while group and now - group[0] >= 60.0:
                group.popleft()
            if len(group) >= self.limits.group_per_minute:
                waits.append(60.0 - (now - group[0]))
                self.refused["group"] += 1
        if waits:
            return max(waits)
        self.last_by_chat[chat_id] = now
        overall.append(now)
        if group is not None:
            group.append(now)
        return None


class FakeTelegram:
    """The fake server; use as ``async with FakeTelegram() as tg``."""

    def __init__(self, *, limits: FloodLimits | None = None, latency: float = 0.0) -> None:
        self.calls: list[Call] = []
        self.messages: dict[tuple[int, int], SentMessage] = {}
        self.retry_after_429s = 0
        self.latency = latency
        self._gate = _FloodGate(limits) if limits else None
        self._updates: list[dict] = []
        self.offset = 0  # the highest getUpdates offset seen: updates below it are confirmed (acknowledged)
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(1000)
        self._new_update = asyncio.Condition()
        self._changed = asyncio.Condition()
        self._floods: list[tuple[Callable[[Call], bool], int]] = []
        self._parse_rejections = 0
        self._failures: list[tuple[str, int, Callable[[Call], bool] | None]] = []
        self.files: dict[str, bytes] = {}  # getFile + download (tests/fakes/telegram_media.py fills it)
        self.user_messages: dict[tuple[int, int], dict] = {}  # quoted whole in replies, as Telegram does
        self._server: LoopbackServer | None = None
        self.port = 0
        self.members: dict[tuple[int, int], str] = {}  # getChatMember status; unknown people are "member"
        self.inline_answers: list[dict] = []  # answerInlineQuery bodies (results decoded)

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def refused_by_limit(self) -> dict[str, int]:
        """Flood-limit 429s by the limit they hit (``chat``, ``group``, ``overall``; one 429 may hit several)."""
        return dict(self._gate.refused) if self._gate else {}

    async def __aenter__(self) -> FakeTelegram:
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", self._dispatch)
        app.router.add_get("/file/bot{token}/{path:.*}", self._download)
        self._server = LoopbackServer(app)
        self.port = await self._server.start()
        return self

    async def __aexit__(self, *exc) -> None:
        if self._server:
            await self._server.stop()

    # ------------------------------------------------------------------ scripting

    def flood(
        self,
        method: str | None = None,
        *,
        chat_id: int | None = None,
        retry_after: int = 1,
        times: int = 1,
        when: Callable[[Call], bool] | None = None,
    ) -> None:
        """Answer the next ``times`` matching calls with 429 and ``retry_after``."""

        def match(call: Call) -> bool:
            return (
                (method is None or call.method == method)
                and (chat_id is None or call.chat_id == chat_id)
                and (when is None or when(call))
            )

        for _ in range(times):
            self._floods.append((match, retry_after))

    def fail(
        self, method: str, *, status: int = 502, times: int = 1, when: Callable[[Call], bool] | None = None
    ) -> None:
        """Answer the next ``times`` calls of ``method`` (that match ``when``) with an HTTP error."""
        self._failures.extend([(method, status, when)] * times)

    def reject_parse(self, times: int = 1) -> None:
        """Reject the next ``times`` calls that carry a parse_mode with "can't parse entities"."""
        self._parse_rejections += times

    def push_update(self, update: dict) -> dict:
        update = {"update_id": next(self._update_ids), **update}
        self._updates.append(update)
        asyncio.get_running_loop().create_task(self._notify(self._new_update))
        return update

    def redeliver(self, update: dict) -> None:
        """Deliver an update again with the same update_id (as Telegram retries an unacknowledged webhook)."""
        self._updates.append(dict(update))
        asyncio.get_running_loop().create_task(self._notify(self._new_update))

    def message(
        self,
        chat_id: int,
        text: str | None,
        *,
        chat_type: str = "private",
        user_id: int = 42,
        user_name: str = "Yan Hui",
        entities: list | None = None,
        reply_to: int | None = None,
        extra: dict | None = None,
    ) -> dict:
        """Push a user message update; commands and @mentions get their entities automatically."""
        chat = {"id": chat_id, "type": chat_type}
        chat.update({"first_name": user_name} if chat_type == "private" else {"title": f"group {chat_id}"})
        msg: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": {"id": user_id, "is_bot": False, "first_name": user_name, "language_code": "zh-hans"},
        }
        if text is not None:
            msg["text"] = text
            auto = entities if entities is not None else _auto_entities(text)
            if auto:
                msg["entities"] = auto
        if reply_to is not None:
            original = self._find(chat_id, reply_to) or self.user_messages.get((chat_id, reply_to))
            msg["reply_to_message"] = original or {"message_id": reply_to, "date": 0, "chat": chat}
        msg.update(extra or {})
        self.user_messages[(chat_id, msg["message_id"])] = {k: v for k, v in msg.items() if k != "reply_to_message"}
        return self.push_update({"message": msg})

    def private_text(self, chat_id: int, text: str, **kw) -> dict:
        return self.message(chat_id, text, chat_type="private", user_id=kw.pop("user_id", chat_id), **kw)

    def group_text(self, chat_id: int, text: str, **kw) -> dict:
        return self.message(chat_id, text, chat_type="supergroup", **kw)

    def callback(self, chat_id: int, message_id: int, data: str, *, user_id: int = 42) -> dict:
        sent = self.messages.get((chat_id, message_id))
        message = (
            self._bot_message_json(sent)
            if sent
            else {"message_id": message_id, "date": 0, "chat": {"id": chat_id, "type": "private"}}
        )
        query = {
            "id": str(next(self._message_ids)),
            "from": {"id": user_id, "is_bot": False, "first_name": "Yan Hui"},
            "chat_instance": "ci",
            "data": data,
            "message": message,
        }
        return self.push_update({"callback_query": query})

    # ------------------------------------------------------------------ reading

    def calls_to(self, method: str, chat_id: int | None = None) -> list[Call]:
        return [c for c in self.calls if c.method == method and (chat_id is None or c.chat_id == chat_id)]

    def chat_calls(self, chat_id: int) -> list[Call]:
        return [c for c in self.calls if c.chat_id == chat_id]

    def messages_in(self, chat_id: int) -> list[SentMessage]:
        return sorted((m for (c, _), m in self.messages.items() if c == chat_id), key=lambda m: m.message_id)

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Wait until ``predicate()`` is truthy (re-checked on every call the bot makes)."""

        async def waiter():
            async with self._changed:
                await self._changed.wait_for(predicate)

        await asyncio.wait_for(waiter(), timeout)
        return predicate()

    # ------------------------------------------------------------------ server

    async def _notify(self, cond: asyncio.Condition) -> None:
        async with cond:
            cond.notify_all()

    async def _dispatch(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        call = Call(method, await _params(request), time.monotonic())
        self.calls.append(call)
        try:
            if self.latency and method != "getUpdates":
                await asyncio.sleep(self.latency)
            status, body = await self._answer(call)
        finally:
            await self._notify(self._changed)
        call.status = status
        return web.json_response(body, status=status)

    async def _answer(self, call: Call) -> tuple[int, dict]:
        for i, (method, status, when) in enumerate(self._failures):
            if method == call.method and (when is None or when(call)):
                del self._failures[i]
                return status, {"ok": False, "error_code": status, "description": "Bad Gateway"}
        refusal = self._refusal(call)
        if refusal is not None:
            self.retry_after_429s += 1
            return 429, {
                "ok": False,
                "error_code": 429,
                "description": f"Too Many Requests: retry after {refusal}",
                "parameters": {"retry_after": refusal},
            }
        handler = getattr(self, f"_m_{call.method}", None)
        if handler is None:
            return 200, {"ok": True, "result": True}
        try:
            return 200, {"ok": True, "result": await handler(call.params)}
        except _BadRequest as exc:
            return 400, {"ok": False, "error_code": 400, "description": f"Bad Request: {exc}"}

    def _refusal(self, call: Call) -> int | None:
        for i, (match, retry_after) in enumerate(self._floods):
            if match(call):
                del self._floods[i]
                return retry_after
        if self._gate and call.method in CHAT_METHODS and call.chat_id is not None:
            wait = self._gate.check(call.chat_id, call.t)
            if wait is not None:
                return max(1, int(wait + 0.999))
        return None

    # ------------------------------------------------------------------ methods

    async def _m_getMe(self, p: dict) -> dict:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Fuzi",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    async def _m_getUpdates(self, p: dict) -> list:
        offset, timeout = int(p.get("offset") or 0), float(p.get("timeout") or 0)
        self.offset = max(self.offset, offset)
        self._updates = [u for u in self._updates if u["update_id"] >= offset]
        if not self._updates and timeout:
            try:
                async with self._new_update:
                    await asyncio.wait_for(self._new_update.wait_for(lambda: self._updates), timeout)
            except TimeoutError:
                pass
        return list(self._updates[: int(p.get("limit") or 100)])

    async def _m_sendMessage(self, p: dict) -> dict:
        chat_id = int(p["chat_id"])
        text, parse_mode = self._visible(p)
        reply = (p.get("reply_parameters") or {}).get("message_id") or p.get("reply_to_message_id")
        sent = SentMessage(
            chat_id,
            next(self._message_ids),
            text,
            p["text"],
            parse_mode,
            p.get("reply_markup"),
            int(reply) if reply else None,
        )
        sent.history.append(text)
        self.messages[(chat_id, sent.message_id)] = sent
        return self._bot_message_json(sent)

    async def _m_editMessageText(self, p: dict) -> dict:
        sent = self.messages.get((int(p["chat_id"]), int(p["message_id"])))
        if sent is None:
            raise _BadRequest("message to edit not found")
        text, parse_mode = self._visible(p)
        markup = p.get("reply_markup")
        if text == sent.text and p["text"] == sent.source and markup == sent.reply_markup:
            raise _BadRequest(
                "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"
            )
        sent.text, sent.source, sent.parse_mode, sent.reply_markup = text, p["text"], parse_mode, markup
        sent.edits += 1
        sent.history.append(text)
        return self._bot_message_json(sent)

    async def _m_editMessageReplyMarkup(self, p: dict) -> dict:
        sent = self.messages.get((int(p["chat_id"]), int(p["message_id"])))
        if sent is None:
            raise _BadRequest("message to edit not found")
        sent.reply_markup = p.get("reply_markup")
        return self._bot_message_json(sent)

    async def _m_getChatMember(self, p: dict) -> dict:
        return chat_member(self.members.get((int(p["chat_id"]), int(p["user_id"])), "member"), int(p["user_id"]))

    async def _m_answerInlineQuery(self, p: dict) -> bool:
        results = p.get("results")
        self.inline_answers.append({**p, "results": json.loads(results) if isinstance(results, str) else results})
        return True

    def inline(self, query: str, *, user_id: int = 42) -> dict:
        """Push an inline query (`@bot query`)."""
        return self.push_update({"inline_query": inline_query(query, user_id)})

    async def _m_getFile(self, p: dict) -> dict:
        data = self.files.get(str(p.get("file_id")))
        if data is None:
            raise _BadRequest("invalid file_id")
        if len(data) > 20 * 1024 * 1024:  # bots may download at most 20 MB
            raise _BadRequest("file is too big")
        fid = str(p["file_id"])
        return {"file_id": fid, "file_unique_id": f"u{fid}", "file_size": len(data), "file_path": f"files/{fid}"}

    async def _download(self, request: web.Request) -> web.Response:
        """The file URL getFile's file_path points to (`/file/bot<token>/<path>`)."""
        fid = request.match_info["path"].rsplit("/", 1)[-1]
        self.calls.append(Call("download", {"file_id": fid}, time.monotonic()))
        data = self.files.get(fid)
        return web.Response(body=data) if data is not None else web.Response(status=404)

    async def _m_deleteWebhook(self, p: dict) -> bool:
        return True

    def _visible(self, p: dict) -> tuple[str, str | None]:
        parse_mode = p.get("parse_mode")
        text = p.get("text", "")
        if parse_mode and self._parse_rejections:
            self._parse_rejections -= 1
            raise _BadRequest("can't parse entities: Can't find end of the entity starting at byte offset 0")
        if parse_mode == "HTML":
            try:
                text = parse_html(text)
            except ParseError as exc:
                raise _BadRequest(str(exc)) from None
        elif parse_mode:
            raise _BadRequest(f"unsupported parse_mode {parse_mode} in this fake")
        if not text.strip():
            raise _BadRequest("message text is empty")
        if utf16_len(text) > 4096:
            raise _BadRequest("message is too long")
        return text, parse_mode

    def _find(self, chat_id: int, message_id: int) -> dict | None:
        sent = self.messages.get((chat_id, message_id))
        return self._bot_message_json(sent) if sent else None

    def _bot_message_json(self, sent: SentMessage) -> dict:
        chat_type = "private" if sent.chat_id > 0 else "supergroup"
        msg = {
            "message_id": sent.message_id,
            "date": int(time.time()),
            "chat": {"id": sent.chat_id, "type": chat_type},
            "from": {"id": BOT_ID, "is_bot": True, "first_name": "Fuzi", "username": BOT_USERNAME},
            "text": sent.text,
        }
        if sent.reply_markup:
            msg["reply_markup"] = sent.reply_markup
        return msg


class _BadRequest(Exception):
    pass


async def _params(request: web.Request) -> dict:
    if request.content_type == "application/json":
        raw = await request.json()
        return raw if isinstance(raw, dict) else {}
    form = await request.post()
    params: dict[str, Any] = {}
    for key, value in form.items():
        if isinstance(value, str) and key in JSON_FIELDS:
            try:
                value = json.loads(value)
            except ValueError:
                pass
        params[key] = value
    return params


def _auto_entities(text: str) -> list[dict]:
    entities = []
    for m in re.finditer(r"(?<![\w/])/[a-zA-Z0-9_]+(?:@\w+)?|@\w+", text):
        if m.group(0).startswith("/") and m.start() != 0:
            continue
        kind = "bot_command" if m.group(0).startswith("/") else "mention"
        entities.append({"type": kind, "offset": utf16_len(text[: m.start()]), "length": utf16_len(m.group(0))})
    return entities
