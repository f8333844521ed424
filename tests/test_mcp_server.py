"""The MCP server `fuzi mcp` runs, in-process with the SDK's own `Client`: the agent's tools, schemas
and answers; failures are error results. (tests/test_mcp_stdio.py starts the real process.)"""

from __future__ import annotations

from mcp import Client

from bot.mcp_server import mcp_server
from core.tools import ToolContext, Toolset, classics_tools, tool
from tests.test_tools_classics import Passages


@tool
async def crash(ctx: ToolContext) -> str:
    """Fails with an internal error."""
    raise KeyError("secret internal detail")


async def test_the_agents_tools_with_their_schemas_and_answers():
    tools = Toolset(classics_tools(Passages()))
    async with Client(mcp_server(tools)) as client:
        listed = (await client.list_tools()).tools
        assert [(t.name, t.input_schema, t.description) for t in listed] == [
            (t.name, t.input_schema, t.description) for t in tools.tools()
        ]
        found = await client.call_tool("search_classics", {"query": "巧言令色", "corpus": "lunyu", "k": 3})
        assert not found.is_error
        assert [(p["id"], p["ref"]) for p in found.structured_content["passages"]][2] == (
            "lunyu:1.3",
            "《论语·学而》第3章",
        )
        got = await client.call_tool("get_passage", {"id": "lunyu:1.2"})
        assert got.structured_content["requested"] == "lunyu:1.2"


async def test_failures_are_error_results_with_the_agents_words():
    async with Client(mcp_server(Toolset([*classics_tools(Passages()), crash]))) as client:
        bad = await client.call_tool("search_classics", {"query": "仁", "k": 0})
        assert bad.is_error and "invalid arguments for search_classics: argument 'k'" in bad.content[0].text
        assert "input schema" in bad.content[0].text  # the hint comes along
        missing = await client.call_tool("find_quote", {})
        assert missing.is_error and "missing required argument 'text'" in missing.content[0].text
        crashed = await client.call_tool("crash", {})
        assert crashed.is_error and "KeyError" in crashed.content[0].text
        assert "secret internal detail" not in crashed.content[0].text
        assert not (await client.call_tool("find_quote", {"text": "巧言令色"})).is_error
