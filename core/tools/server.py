"""In-process tool servers that answer MCP-shaped JSON-RPC 2.0 requests.

A server registers typed async functions as tools; each tool's JSON-Schema input comes from the
function's signature and its description from the docstring::

    classics = ToolServer("classics")

    @classics.tool
    async def search_classics(ctx: ToolContext, query: str, k: int = 5) -> dict:
        '''Search the Analects and the Book of Songs. Use for … Do not use for …

        Args:
            query: what to look for, in the user's words.
            k: how many passages to return (1-10).
        '''
        return {"passages": [{"id": "lunyu:3.22", "ref": "《论语·八佾》第22章", "text": "…"}]}

A handler returns a JSON-serialisable dict or a str. A dict with key "passages" (a list of
{"id", "ref", "text", …}) carries citable passages; the engine numbers them (core/citations.py).
A handler raises `ToolError` for a failure the model should read; any other exception is logged and
the model only learns that the tool failed.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog
from pydantic import BaseModel

from core.tools import protocol as rpc
from core.tools.schema import (
    ArgumentError,
    build_arguments_model,
    context_parameter,
    input_schema,
    parse_docstring,
    validate_arguments,
)

log = structlog.get_logger(__name__)

Handler = Callable[..., Awaitable[Any] | Any]


@dataclass(frozen=True)
class ToolContext:
    """What a tool handler knows about the turn it serves.

    Attributes:
        person_id: canonical person id (linked platform accounts share it).
        platform: "console", "telegram" or "discord".
        chat_id: the conversation on that platform.
        is_group: True in groups, guild channels and threads.
        trace_id: ties the tool's log lines to the message.
        account: the sender's `platform:user_id` (memory records where a fact was said).
        is_admin: the sender is in FUZI_ADMIN_IDS.
    """

    person_id: int
    platform: str
    chat_id: str
    is_group: bool
    trace_id: str
    account: str = ""
    is_admin: bool = False

    @property
    def chat_key(self) -> str:
        """`platform:chat_id`, unique across platforms (as `Incoming.chat_key`)."""
        return f"{self.platform}:{self.chat_id}"


class ToolError(Exception):
    """A failure the model should read: `str(exc)` and `hint` go into the observation."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class ToolDefinition:
    """A tool as `tools/list` describes it (MCP field names)."""

    name: str
    description: str
    input_schema: dict[str, Any]

    def as_mcp(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema}


@dataclass(frozen=True)
class _Tool:
    definition: ToolDefinition
    handler: Handler
    arguments: type[BaseModel]
    context_param: str | None


class ToolServer:
    """A named group of tools answering `initialize`, `tools/list`, `tools/call` and `ping`.

    Args:
        name: the server name reported by `initialize` (e.g. "classics", "web", "memory").
        version: reported by `initialize`.
        default_timeout_s: time limit for a handler when the request does not set `_meta.timeout_s`;
            None means no limit from the server (the client normally sets one).
    """

    def __init__(self, name: str, *, version: str = "1.0", default_timeout_s: float | None = None):
        self.name = name
        self.version = version
        self.default_timeout_s = default_timeout_s
        self._tools: dict[str, _Tool] = {}

    # ---------------------------------------------------------------- registration
    def tool(self, fn: Handler | None = None, *, name: str | None = None, description: str | None = None):
        """Register `fn` as a tool (usable as `@server.tool` or `@server.tool(name=…)`).

        A name already registered on this server is refused: a warning is logged and the first
        registration stays. The function is returned unchanged either way.
        """

        def register(f: Handler) -> Handler:
            self.add_tool(f, name=name, description=description)
            return f

        return register(fn) if fn is not None else register

    def add_tool(self, fn: Handler, *, name: str | None = None, description: str | None = None) -> bool:
        """Register `fn`; return False (and log a warning) when the name is taken."""
        tool_name = name or fn.__name__
        if tool_name in self._tools:
            log.warning("tool_duplicate_refused", server=self.name, tool=tool_name)
            return False
        ctx_param = context_parameter(fn, ToolContext)
        model = build_arguments_model(fn, tool_name, ctx_param)
        text = description or parse_docstring(fn.__doc__).summary
        if not text:
            raise ValueError(f"tool {tool_name!r} needs a description (docstring or description=)")
        definition = ToolDefinition(tool_name, text, input_schema(model))
        self._tools[tool_name] = _Tool(definition, fn, model, ctx_param)
        return True

    @property
    def definitions(self) -> list[ToolDefinition]:
        """Every registered tool, in registration order."""
        return [t.definition for t in self._tools.values()]

    # ---------------------------------------------------------------- JSON-RPC
    async def handle(self, message: dict[str, Any], ctx: ToolContext | None = None) -> dict[str, Any] | None:
        """Answer one JSON-RPC request dict; a notification (no `id`) gets None.

        `ctx` travels beside the message (in-process transport): it describes the turn and is
        handed to handlers that ask for it.
        """
        request_id = message.get("id") if isinstance(message, dict) else None
        try:
            result = await self._dispatch(message, ctx)
        except rpc.RpcError as err:
            return rpc.error_response(request_id, err) if _expects_reply(message) else None
        except Exception:  # a bug in the server itself, never in a handler (handled below)
            log.exception("tool_server_internal_error", server=self.name)
            internal = rpc.RpcError(rpc.INTERNAL_ERROR, "internal error")
            return rpc.error_response(request_id, internal) if _expects_reply(message) else None
        return rpc.result_response(request_id, result) if _expects_reply(message) else None

    async def handle_json(self, text: str | bytes, ctx: ToolContext | None = None) -> str | None:
        """The same over a text transport: a JSON request in, a JSON response out (-32700 if unparsable)."""
        try:
            message = json.loads(text)
        except (ValueError, UnicodeDecodeError):
            err = rpc.RpcError(rpc.PARSE_ERROR, "parse error: the request is not valid JSON")
            return json.dumps(rpc.error_response(None, err))
        response = await self.handle(message, ctx)
        return None if response is None else json.dumps(response, ensure_ascii=False, default=str)

    async def _dispatch(self, message: Any, ctx: ToolContext | None) -> Any:
        if (
            not isinstance(message, dict)
            or message.get("jsonrpc") != rpc.JSONRPC
            or not isinstance(message.get("method"), str)
        ):
            raise rpc.RpcError(rpc.INVALID_REQUEST, "not a JSON-RPC 2.0 request")
        params = message.get("params", {})
        if not isinstance(params, dict):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "params must be an object")
        method = message["method"]
        if method == "initialize":
            return self._initialize()
        if method == "tools/list":
            return {"tools": [d.as_mcp() for d in self.definitions]}
        if method == "tools/call":
            return await self._call(params, ctx)
        if method == "ping" or method.startswith("notifications/"):
            return {}
        raise rpc.RpcError(rpc.METHOD_NOT_FOUND, f"method not found: {method}")

    def _initialize(self) -> dict[str, Any]:
        return {
            "protocolVersion": rpc.PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": self.name, "version": self.version},
        }

    async def _call(self, params: dict[str, Any], ctx: ToolContext | None) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "tools/call needs a string 'name'")
        tool = self._tools.get(name)
        if tool is None:
            raise rpc.RpcError(rpc.TOOL_NOT_FOUND, f"unknown tool: {name}", {"tool": name})
        try:
            kwargs = validate_arguments(tool.arguments, params.get("arguments"))
        except ArgumentError as exc:
            raise rpc.RpcError(
                rpc.INVALID_PARAMS, f"invalid arguments for {name}: {exc}", {"tool": name, "problems": exc.problems}
            ) from None
        if tool.context_param:
            if ctx is None:
                raise rpc.RpcError(rpc.INVALID_PARAMS, f"tool {name} needs a context", {"tool": name})
            kwargs[tool.context_param] = ctx
        output = await self._run(tool, kwargs, _timeout(params, self.default_timeout_s))
        return _render(output)

    async def _run(self, tool: _Tool, kwargs: dict[str, Any], timeout_s: float | None) -> Any:
        name = tool.definition.name
        started = time.perf_counter()
        try:
            return await asyncio.wait_for(call_sync_or_async(tool.handler, **kwargs), timeout_s)
        except TimeoutError:
            raise rpc.RpcError(
                rpc.TOOL_TIMEOUT, f"tool {name} timed out after {timeout_s:g}s", {"tool": name}
            ) from None
        except ToolError as exc:
            raise rpc.RpcError(rpc.TOOL_EXECUTION_ERROR, str(exc), {"tool": name, "hint": exc.hint}) from None
        except Exception as exc:
            ms = round((time.perf_counter() - started) * 1000, 1)
            log.exception("tool_handler_failed", server=self.name, tool=name, latency_ms=ms)
            message = f"tool {name} failed ({type(exc).__name__})"
            raise rpc.RpcError(rpc.TOOL_EXECUTION_ERROR, message, {"tool": name}) from None


def _expects_reply(message: Any) -> bool:
    return not isinstance(message, dict) or "id" in message


def _timeout(params: dict[str, Any], default: float | None) -> float | None:
    meta = params.get("_meta")
    value = meta.get("timeout_s") if isinstance(meta, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return default


async def call_sync_or_async(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Call `fn` without blocking the event loop: await it when it is a coroutine function, else
    run it in a worker thread (sync callables may do blocking I/O: SQL, LanceDB, BM25) and await
    what it returns when that is awaitable."""
    if inspect.iscoroutinefunction(fn):
        return await fn(*args, **kwargs)
    result = await asyncio.to_thread(fn, *args, **kwargs)
    return await result if inspect.isawaitable(result) else result


def _render(output: Any) -> dict[str, Any]:
    """A `tools/call` result: text content, plus `structuredContent` when the handler gave a dict."""
    if isinstance(output, dict):
        text = json.dumps(output, ensure_ascii=False, default=str)
        return {"content": [{"type": "text", "text": text}], "structuredContent": output, "isError": False}
    if output is None:
        output = ""
    if not isinstance(output, str):
        output = json.dumps(output, ensure_ascii=False, default=str)
    return {"content": [{"type": "text", "text": output}], "isError": False}
