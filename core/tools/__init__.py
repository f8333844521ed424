"""MCP-shaped tool layer: in-process JSON-RPC 2.0 tool servers, the aggregating client, the tools.

Wiring: build the servers (classics, memory, web when configured), hand them to one ToolClient,
and give that client to the Agent::

    servers = [classics_server(retriever), memory_server]
    if (web := build_web_search_server(settings.web_search)) is not None:
        servers.append(web)
    tools = ToolClient(servers)  # 15 s per call, under the reply deadline
"""

from core.tools.classics import classics_server
from core.tools.client import ToolClient, ToolOutcome
from core.tools.server import ToolContext, ToolDefinition, ToolError, ToolServer
from core.tools.web_search import build_web_search_server

__all__ = [
    "ToolClient",
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolOutcome",
    "ToolServer",
    "build_web_search_server",
    "classics_server",
]
