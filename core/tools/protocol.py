"""JSON-RPC 2.0 messages for the MCP-shaped tool layer: codes, requests, responses.

Error codes (`error.code` in a response):

| code   | name                 | when |
| ------ | -------------------- | ---- |
| -32700 | PARSE_ERROR          | the request is not valid JSON (only for text transports) |
| -32600 | INVALID_REQUEST      | not a JSON-RPC 2.0 request object (missing `jsonrpc`/`method`) |
| -32601 | METHOD_NOT_FOUND     | the method is not `initialize`, `tools/list`, `tools/call`, `ping` |
| -32602 | INVALID_PARAMS       | bad `params`, or the tool's arguments failed validation |
| -32603 | INTERNAL_ERROR       | a bug in the server itself |
| -32001 | TOOL_NOT_FOUND       | `tools/call` names a tool this server does not have |
| -32002 | TOOL_EXECUTION_ERROR | the tool's handler raised |
| -32003 | TOOL_TIMEOUT         | the tool's handler ran past its time limit |

The -320xx codes sit in the range JSON-RPC reserves for implementation-defined server errors.
`error.data` carries details: `problems` (list of argument problems), `tool`, `hint`.
"""

from __future__ import annotations

from typing import Any

JSONRPC = "2.0"
PROTOCOL_VERSION = "2025-06-18"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TOOL_NOT_FOUND = -32001
TOOL_EXECUTION_ERROR = -32002
TOOL_TIMEOUT = -32003


class RpcError(Exception):
    """Raised inside a server method; becomes the response's `error` object."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def request(request_id: int | str | None, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A request dict; `request_id=None` makes it a notification (no response expected)."""
    msg: dict[str, Any] = {"jsonrpc": JSONRPC, "method": method}
    if params is not None:
        msg["params"] = params
    if request_id is not None:
        msg["id"] = request_id
    return msg


def result_response(request_id: int | str | None, result: Any) -> dict[str, Any]:
    """A success response."""
    return {"jsonrpc": JSONRPC, "id": request_id, "result": result}


def error_response(request_id: int | str | None, error: RpcError) -> dict[str, Any]:
    """An error response carrying `code`, `message` and, when present, `data`."""
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": JSONRPC, "id": request_id, "error": body}
