"""MCP-shaped tool layer: in-process JSON-RPC 2.0 tool servers, the aggregating client, web search."""

from core.tools.client import ToolClient, ToolOutcome
from core.tools.server import ToolContext, ToolDefinition, ToolError, ToolServer

__all__ = ["ToolClient", "ToolContext", "ToolDefinition", "ToolError", "ToolOutcome", "ToolServer"]
