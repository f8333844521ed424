"""Tool servers and the tool client: schemas, JSON-RPC messages and codes, validation, failures."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import pytest
import structlog
from pydantic import Field

from core.tools import ToolClient, ToolContext, ToolError, ToolServer
from core.tools import protocol as rpc

CTX = ToolContext(person_id=7, platform="console", chat_id="c1", is_group=False, trace_id="t-1")


def make_server() -> ToolServer:
    server = ToolServer("classics")

    @server.tool
    async def search_classics(
        ctx: ToolContext, query: str, k: Annotated[int, Field(ge=1, le=10)] = 5, exact: bool = False
    ) -> dict:
        """Search the Analects and the Book of Songs. Use for quotes; not for modern events.

        This second paragraph is not part of the description.

        Args:
            query: what to look for,
                in the user's words.
            k: how many passages (1-10).
        """
        return {"query": query, "k": k, "exact": exact, "person": ctx.person_id}

    @server.tool(name="boom")
    async def explode(ctx: ToolContext) -> str:
        """Always fails with an internal error."""
        raise KeyError("secret internal detail")

    @server.tool
    async def picky(ctx: ToolContext, word: str) -> str:
        """Fails with a message meant for the model."""
        raise ToolError(f"nothing found for {word}", hint="Try a single character.")

    @server.tool
    async def slow(ctx: ToolContext) -> str:
        """Never finishes."""
        await asyncio.Event().wait()
        return "never"

    @server.tool
    def plain(word: str) -> str:
        """A synchronous tool without context."""
        return word.upper()

    return server


def call(name: str, arguments, request_id=1, **meta) -> dict:
    params = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return rpc.request(request_id, "tools/call", params)


def test_schema_from_signature_and_docstring():
    (definition, *_) = make_server().definitions
    assert definition.name == "search_classics"
    assert definition.description == "Search the Analects and the Book of Songs. Use for quotes; not for modern events."
    schema = definition.input_schema
    assert schema["type"] == "object" and schema["required"] == ["query"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"query", "k", "exact"}  # ctx excluded
    assert schema["properties"]["query"] == {"type": "string", "description": "what to look for, in the user's words."}
    assert schema["properties"]["k"]["minimum"] == 1 and schema["properties"]["k"]["maximum"] == 10
    assert schema["properties"]["k"]["default"] == 5
    assert "title" not in str(schema)


async def test_jsonrpc_initialize_list_and_call():
    server = make_server()
    init = await server.handle(rpc.request("a", "initialize", {"protocolVersion": rpc.PROTOCOL_VERSION}))
    assert init["jsonrpc"] == "2.0" and init["id"] == "a"
    assert init["result"]["serverInfo"]["name"] == "classics"
    assert "tools" in init["result"]["capabilities"]
    listing = await server.handle(rpc.request(2, "tools/list"))
    assert [t["name"] for t in listing["result"]["tools"]] == ["search_classics", "boom", "picky", "slow", "plain"]
    assert "inputSchema" in listing["result"]["tools"][0]
    reply = await server.handle(call("search_classics", {"query": "仁"}, request_id=3), CTX)
    assert reply["id"] == 3 and reply["result"]["isError"] is False
    assert reply["result"]["structuredContent"] == {"query": "仁", "k": 5, "exact": False, "person": 7}
    assert '"query": "仁"' in reply["result"]["content"][0]["text"]


async def test_notification_gets_no_response():
    assert await make_server().handle(rpc.request(None, "notifications/initialized")) is None


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (rpc.request(1, "resources/list"), rpc.METHOD_NOT_FOUND),
        ({"id": 1, "method": "tools/list"}, rpc.INVALID_REQUEST),
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]}, rpc.INVALID_PARAMS),
        (rpc.request(1, "tools/call", {"arguments": {}}), rpc.INVALID_PARAMS),
        (call("nope", {}), rpc.TOOL_NOT_FOUND),
        (call("search_classics", {}), rpc.INVALID_PARAMS),
        (call("boom", {}), rpc.TOOL_EXECUTION_ERROR),
        (call("slow", {}, timeout_s=0.05), rpc.TOOL_TIMEOUT),
    ],
)
async def test_jsonrpc_error_codes(message, code):
    reply = await make_server().handle(message, CTX)
    assert reply["jsonrpc"] == "2.0" and reply["id"] == 1
    assert "result" not in reply
    assert reply["error"]["code"] == code
    assert reply["error"]["message"]


def test_error_codes_are_distinct():
    codes = [
        rpc.PARSE_ERROR,
        rpc.INVALID_REQUEST,
        rpc.METHOD_NOT_FOUND,
        rpc.INVALID_PARAMS,
        rpc.INTERNAL_ERROR,
        rpc.TOOL_NOT_FOUND,
        rpc.TOOL_EXECUTION_ERROR,
        rpc.TOOL_TIMEOUT,
    ]
    assert len(set(codes)) == len(codes)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"query": "仁", "k": "5"}, {"k": 5}),
        ({"query": "仁", "k": 3.0}, {"k": 3}),
        ({"query": 42}, {"query": "42"}),
        ({"query": "仁", "exact": "true"}, {"exact": True}),
        ({"query": "仁", "exact": "false"}, {"exact": False}),
    ],
)
async def test_safe_coercions(arguments, expected):
    reply = await make_server().handle(call("search_classics", arguments), CTX)
    result = reply["result"]["structuredContent"]
    assert {k: result[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({}, "missing required argument 'query'"),
        ({"query": None}, "argument 'query' must be a string, got None"),
        ({"query": "仁", "k": "five"}, "argument 'k' must be an integer, got 'five'"),
        ({"query": "仁", "k": 2.5}, "argument 'k' must be an integer, got 2.5"),
        ({"query": ["仁"]}, "argument 'query' must be a string"),
        ({"query": "仁", "exact": "maybe"}, "argument 'exact' must be a boolean"),
        ({"query": "仁", "k": 50}, "argument 'k'"),
        ({"query": "仁", "top": 3}, "unexpected argument 'top' (valid arguments: query, k, exact)"),
        ("仁", "arguments must be a JSON object"),
    ],
)
async def test_bad_arguments_refused_with_clear_message(arguments, problem):
    ran = []
    server = make_server()

    @server.tool
    async def spy(ctx: ToolContext, query: str) -> str:
        """Records that it ran."""
        ran.append(query)
        return "ran"

    reply = await server.handle(call("search_classics", arguments), CTX)
    assert reply["error"]["code"] == rpc.INVALID_PARAMS
    assert any(problem in p for p in reply["error"]["data"]["problems"]), reply["error"]
    assert problem in reply["error"]["message"]
    assert ran == []


async def test_duplicate_tool_refused_with_warning():
    server = make_server()
    with structlog.testing.capture_logs() as logs:
        added = server.add_tool(_other_search, name="search_classics")
    assert added is False
    assert any(e["event"] == "tool_duplicate_refused" and e["log_level"] == "warning" for e in logs)
    reply = await server.handle(call("search_classics", {"query": "x"}), CTX)
    assert reply["result"]["structuredContent"]["query"] == "x"  # the first registration still answers


async def _other_search(ctx: ToolContext, query: str) -> str:
    """A second tool that wants the same name."""
    return "second"


async def test_client_aggregates_servers_and_refuses_duplicate_names_across_servers():
    other = ToolServer("other")
    other.add_tool(_other_search, name="search_classics")
    other.add_tool(_other_search, name="other_only")
    client = ToolClient([make_server(), other])
    with structlog.testing.capture_logs() as logs:
        await client.connect()
    assert client.names == ["search_classics", "boom", "picky", "slow", "plain", "other_only"]
    assert any(e["event"] == "tool_duplicate_refused" and e["tool"] == "search_classics" for e in logs)
    outcome = await client.call("search_classics", {"query": "q"}, CTX)
    assert outcome.ok and outcome.content["query"] == "q"
    assert (await client.call("other_only", {"query": "q"}, CTX)).content == "second"


async def test_to_openai_tools_filters_by_allowed_names():
    client = ToolClient([make_server()])
    await client.connect()
    tools = client.to_openai_tools(["plain", "search_classics", "not_a_tool"])
    assert [t["function"]["name"] for t in tools] == ["search_classics", "plain"]
    assert tools[0]["type"] == "function"
    assert tools[0]["function"]["parameters"]["required"] == ["query"]
    assert tools[1]["function"]["description"] == "A synchronous tool without context."
    assert len(client.to_openai_tools()) == 5
    assert client.to_openai_tools([]) == []


async def test_client_turns_failures_into_structured_observations():
    client = ToolClient([make_server()], timeout_s=0.05)
    unknown = await client.call("nope", {}, CTX)
    assert unknown.error_observation()["ok"] is False
    assert unknown.code == rpc.TOOL_NOT_FOUND and "search_classics" in unknown.hint and "plain" in unknown.hint
    bad = await client.call("search_classics", {"k": "x"}, CTX)
    assert bad.code == rpc.INVALID_PARAMS and "missing required argument 'query'" in bad.error
    crashed = await client.call("boom", {}, CTX)
    assert crashed.code == rpc.TOOL_EXECUTION_ERROR and "KeyError" in crashed.error
    assert "secret internal detail" not in crashed.error  # internals stay in the log
    told = await client.call("picky", {"word": "仁"}, CTX)
    assert told.error == "nothing found for 仁" and told.hint == "Try a single character."
    slow = await client.call("slow", {}, CTX)
    assert slow.code == rpc.TOOL_TIMEOUT and "timed out" in slow.error
    assert set(slow.error_observation()) == {"ok", "error", "hint"}
    assert (await client.call("plain", {"word": "li"}, CTX)).content == "LI"


async def test_tool_needs_description():
    server = ToolServer("x")

    async def nameless(ctx: ToolContext) -> str:
        return ""

    with pytest.raises(ValueError, match="description"):
        server.add_tool(nameless)
    assert server.add_tool(nameless, description="Explicit description.") is True


async def test_to_openai_tools_requires_connect():
    with pytest.raises(RuntimeError, match="connect"):
        ToolClient([make_server()]).to_openai_tools()


async def test_client_refuses_a_second_server_with_the_same_name():
    first, second = make_server(), ToolServer("classics")
    second.add_tool(_other_search, name="only_in_second")
    client = ToolClient([first])
    with structlog.testing.capture_logs() as logs:
        client.add_server(second)
    assert any(e["event"] == "tool_server_duplicate_refused" for e in logs)
    await client.connect()
    assert "only_in_second" not in client.names


async def test_servers_added_after_connect_are_discovered_on_next_connect():
    client = ToolClient([make_server()])
    await client.connect()
    late = ToolServer("late")
    late.add_tool(_other_search, name="late_tool")
    client.add_server(late)
    outcome = await client.call("late_tool", {"query": "x"}, CTX)  # call() reconnects
    assert outcome.ok and outcome.content == "second"
    assert client.names[-1] == "late_tool"


async def test_text_transport_parse_error_and_round_trip():
    server = make_server()
    broken = json.loads(await server.handle_json('{"jsonrpc": "2.0", "id": 1, "method": '))
    assert broken == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": rpc.PARSE_ERROR, "message": broken["error"]["message"]},
    }
    reply = json.loads(await server.handle_json(json.dumps(call("plain", {"word": "ren"}, request_id=9)), CTX))
    assert reply["id"] == 9 and reply["result"]["content"][0]["text"] == "REN"
    assert await server.handle_json(json.dumps(rpc.request(None, "notifications/initialized"))) is None
