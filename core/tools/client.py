"""The tool client: aggregates tool servers and talks JSON-RPC 2.0 to them in-process.

The agent only needs `connect()`, `to_openai_tools(names_allowed)` and `call(name, args, ctx)`.
`call` never raises for a tool problem: every failure comes back as a `ToolOutcome` with ok=False,
an error line and a hint the model can act on.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import structlog

from core.tools import protocol as rpc
from core.tools.server import ToolContext, ToolDefinition, ToolServer

log = structlog.get_logger(__name__)

_HINTS = {
    rpc.INVALID_PARAMS: "Fix the arguments to match the tool's input schema, then call it again.",
    rpc.TOOL_TIMEOUT: "The tool took too long. Try once with a narrower query, or answer from what you have.",
    rpc.TOOL_EXECUTION_ERROR: "The tool failed. Try other arguments or another tool, or answer from what you have.",
}
_DEFAULT_HINT = "The tool is unavailable now; answer from what you already have."
_TRANSPORT_GRACE_S = 1.0  # extra time the client waits beyond the server's own limit


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call's result as the agent sees it.

    Attributes:
        ok: the handler ran and returned.
        content: the handler's dict (structured content) or text; None when not ok.
        error: one line saying what went wrong (not ok only).
        hint: what the model could do next (not ok only).
        code: the JSON-RPC error code (not ok only).
    """

    ok: bool
    content: dict[str, Any] | str | None = None
    error: str | None = None
    hint: str | None = None
    code: int | None = None

    def error_observation(self) -> dict[str, Any]:
        """The structured observation for a failure: {"ok": false, "error": …, "hint": …}."""
        return {"ok": False, "error": self.error or "tool failed", "hint": self.hint or _DEFAULT_HINT}

    @classmethod
    def failure(cls, code: int, error: str, hint: str | None = None) -> ToolOutcome:
        return cls(ok=False, error=error, hint=hint or _HINTS.get(code, _DEFAULT_HINT), code=code)


class ToolClient:
    """Aggregates tool servers; lists their tools and routes `tools/call` to the owning server.

    Args:
        servers: the servers to aggregate, in priority order (the first owner of a name wins).
        timeout_s: default per-call time limit handed to servers (`_meta.timeout_s`).
    """

    def __init__(self, servers: Iterable[ToolServer] = (), *, timeout_s: float = 15.0):
        self.timeout_s = timeout_s
        self._servers: list[ToolServer] = []
        self._routes: dict[str, tuple[ToolServer, ToolDefinition]] = {}
        self._ids = itertools.count(1)
        self._connected = False
        self._lock = asyncio.Lock()
        for server in servers:
            self.add_server(server)

    def add_server(self, server: ToolServer) -> None:
        """Add a server; its tools become visible at the next `connect()`. Same name twice is refused."""
        if any(s.name == server.name for s in self._servers):
            log.warning("tool_server_duplicate_refused", server=server.name)
            return
        self._servers.append(server)
        self._connected = False

    # ---------------------------------------------------------------- discovery
    async def connect(self) -> None:
        """Handshake with every server (`initialize`, `tools/list`) and build the routing table.

        Idempotent; cheap after the first call. A tool name offered by two servers is kept for the
        first and refused for the second with a warning.
        """
        async with self._lock:
            if self._connected:
                return
            routes: dict[str, tuple[ToolServer, ToolDefinition]] = {}
            for server in self._servers:
                await self._request(server, "initialize", {"protocolVersion": rpc.PROTOCOL_VERSION})
                await server.handle(rpc.request(None, "notifications/initialized"))
                listing = await self._request(server, "tools/list", {})
                for item in listing.get("tools", []):
                    self._add_route(routes, server, item)
            self._routes = routes
            self._connected = True

    def _add_route(self, routes: dict, server: ToolServer, item: dict[str, Any]) -> None:
        name = item["name"]
        if name in routes:
            log.warning("tool_duplicate_refused", tool=name, server=server.name, kept=routes[name][0].name)
            return
        routes[name] = (server, ToolDefinition(name, item.get("description", ""), item.get("inputSchema", {})))

    async def _request(self, server: ToolServer, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = await server.handle(rpc.request(next(self._ids), method, params))
        if response is None or "error" in response:
            err = (response or {}).get("error", {})
            raise RuntimeError(f"tool server {server.name}: {method} failed: {err.get('message')}")
        return response["result"]

    @property
    def names(self) -> list[str]:
        """Every tool name, in discovery order (after `connect()`)."""
        self._require_connected()
        return list(self._routes)

    def definitions(self, names_allowed: Iterable[str] | None = None) -> list[ToolDefinition]:
        """Tool definitions, filtered to `names_allowed` when given (None = all)."""
        self._require_connected()
        allowed = None if names_allowed is None else set(names_allowed)
        return [d for _, d in self._routes.values() if allowed is None or d.name in allowed]

    def to_openai_tools(self, names_allowed: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The tools in OpenAI's `tools` format (MCP `inputSchema` is OpenAI's `parameters`)."""
        return [
            {
                "type": "function",
                "function": {"name": d.name, "description": d.description, "parameters": d.input_schema},
            }
            for d in self.definitions(names_allowed)
        ]

    def _require_connected(self) -> None:
        if not self._connected:
            raise RuntimeError("ToolClient.connect() must be awaited first")

    # ---------------------------------------------------------------- calling
    async def call(self, name: str, arguments: Any, ctx: ToolContext, *, timeout_s: float | None = None) -> ToolOutcome:
        """Call tool `name` with `arguments` (a dict); never raises for tool problems."""
        await self.connect()
        route = self._routes.get(name)
        if route is None:
            valid = ", ".join(self._routes) or "none"
            return ToolOutcome.failure(rpc.TOOL_NOT_FOUND, f"unknown tool: {name}", f"Valid tools: {valid}.")
        limit = timeout_s or self.timeout_s
        params = {"name": name, "arguments": arguments, "_meta": {"timeout_s": limit, "trace_id": ctx.trace_id}}
        message = rpc.request(next(self._ids), "tools/call", params)
        try:
            response = await asyncio.wait_for(route[0].handle(message, ctx), limit + _TRANSPORT_GRACE_S)
        except TimeoutError:
            return ToolOutcome.failure(rpc.TOOL_TIMEOUT, f"tool {name} timed out after {limit:g}s")
        return _outcome(response)


def _outcome(response: dict[str, Any] | None) -> ToolOutcome:
    if response is None:
        return ToolOutcome.failure(rpc.INTERNAL_ERROR, "no response from tool server")
    if "error" in response:
        err = response["error"]
        data = err.get("data") or {}
        return ToolOutcome.failure(
            err.get("code", rpc.INTERNAL_ERROR), err.get("message", "tool failed"), data.get("hint")
        )
    result = response.get("result") or {}
    if result.get("isError"):
        return ToolOutcome.failure(rpc.TOOL_EXECUTION_ERROR, _text(result) or "tool reported an error")
    structured = result.get("structuredContent")
    return ToolOutcome(ok=True, content=structured if isinstance(structured, dict) else _text(result))


def _text(result: dict[str, Any]) -> str:
    parts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
    return "\n".join(parts) if parts else json.dumps(result.get("content", []), ensure_ascii=False)
