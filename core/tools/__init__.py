"""Tools: typed async functions the agent calls (schema from the signature), gathered in a Toolset.

Wiring (bot/agent.py)::

    tools = Toolset(classics_tools(passages))  # search_classics, find_quote, get_passage
    if (web := build_web_search_tool(settings.web_search)) is not None:
        tools.add(web)
    register_memory(memory, toolset=tools)  # remember, recall

`fuzi mcp` (bot/commands/mcp.py) serves the classics tools over the Model Context Protocol.
"""

from core.tools.classics import classics_tools
from core.tools.tool import Tool, ToolContext, ToolError, tool
from core.tools.toolset import ToolOutcome, Toolset
from core.tools.web_search import build_web_search_tool

__all__ = [
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "Toolset",
    "build_web_search_tool",
    "classics_tools",
    "tool",
]
