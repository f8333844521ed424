"""Fuzi's tools as an MCP server (the official `mcp` SDK's `MCPServer`), served by `fuzi mcp`.

Any MCP client (a desktop assistant, an IDE agent, another bot) starts `fuzi mcp` as a subprocess and
gets `search_classics`, `find_quote` and `get_passage`: the agent's own tools (core/tools/classics.py)
over Fuzi's retriever, with the same input schemas, answering passage ids, texts and citations
(`ref`, e.g. 《论语·八佾》第22章). A tool failure or a bad argument is an error result (`isError`),
never a crash. Imported only by `fuzi mcp` (the SDK takes about a second to import).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as MCPToolError
from mcp.server.mcpserver.tools import Tool as MCPTool

from core.tools import Tool, ToolContext, Toolset
from core.types import new_trace_id

INSTRUCTIONS = (
    "Fuzi's tools over the Analects (论语), the Book of Songs (诗经), Mencius (孟子), the Great Learning "
    "(大学) and the Doctrine of the Mean (中庸): search_classics ranks passages "
    "for a question, find_quote finds where a remembered line comes from, get_passage reads one passage "
    "by id with its neighbours. Cite a passage by its `ref`; its `id` (lunyu:3.22, shijing:1, mengzi:1.3) is stable."
)


def mcp_server(tools: Toolset) -> MCPServer:
    """An MCP server offering every tool of `tools`, each with the input schema the agent sees."""
    served = [_served(tools, t) for t in tools.tools()]
    return MCPServer("fuzi", version=_version(), instructions=INSTRUCTIONS, tools=served, log_level="WARNING")


def _served(tools: Toolset, spec: Tool) -> MCPTool:
    """`spec` as the SDK's tool: the agent's input schema, and a call goes through `Toolset.call`, so a
    bad argument gets the same one-line answer the model gets (the SDK only gathers the arguments)."""

    async def call(**arguments: Any) -> dict[str, Any]:
        given = {name: value for name, value in arguments.items() if value is not None}
        ctx = ToolContext(person_id=0, platform="mcp", chat_id="stdio", is_group=False, trace_id=new_trace_id())
        outcome = await tools.call(spec.name, given, ctx)
        if not outcome.ok:
            raise MCPToolError(f"{outcome.error}. {outcome.hint}")
        return outcome.content if isinstance(outcome.content, dict) else {"text": outcome.content}

    function: Callable[..., Awaitable[dict[str, Any]]] = call
    function.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    function.__name__ = spec.name
    served = MCPTool.from_function(function, name=spec.name, description=spec.description)
    return served.model_copy(update={"parameters": spec.input_schema})


def _signature(spec: Tool) -> inspect.Signature:
    """The tool's parameter names, each optional and of any type: what the SDK reads to gather the
    arguments; a missing one (None) is left out, and the tool's own model validates the rest."""
    params = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Any)
        for name in spec.arguments.model_fields
    ]
    return inspect.Signature(params, return_annotation=dict[str, Any])


def _version() -> str:
    try:
        return version("fuzi")
    except PackageNotFoundError:  # a checkout that was never installed
        return "0"
