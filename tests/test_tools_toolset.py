"""Typed function tools and the toolset: schemas from signatures, validation, outcomes, one time limit."""

from __future__ import annotations

import asyncio
from typing import Annotated

import pytest
import structlog
from pydantic import Field

from core.tools import Tool, ToolContext, ToolError, Toolset, tool

CTX = ToolContext(person_id=7, platform="console", chat_id="c1", is_group=False, trace_id="t-1")


@tool
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


@tool(name="boom")
async def explode(ctx: ToolContext) -> str:
    """Always fails with an internal error."""
    raise KeyError("secret internal detail")


@tool
async def picky(ctx: ToolContext, word: str) -> str:
    """Fails with a message meant for the model."""
    raise ToolError(f"nothing found for {word}", hint="Try a single character.")


@tool
async def slow(ctx: ToolContext) -> str:
    """Never finishes."""
    await asyncio.Event().wait()
    return "never"


@tool
async def own_timeout(ctx: ToolContext) -> str:
    """Its own I/O times out (not the call's limit)."""
    raise TimeoutError


@tool
async def plain(word: str) -> str:
    """A tool without context."""
    return word.upper()


def toolset(**kwargs) -> Toolset:
    return Toolset([search_classics, explode, picky, slow, own_timeout, plain], **kwargs)


def test_schema_from_signature_and_docstring():
    assert isinstance(search_classics, Tool) and search_classics.name == "search_classics"
    assert (
        search_classics.description
        == "Search the Analects and the Book of Songs. Use for quotes; not for modern events."
    )
    schema = search_classics.input_schema
    assert schema["type"] == "object" and schema["required"] == ["query"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"query", "k", "exact"}  # ctx excluded
    assert schema["properties"]["query"] == {"type": "string", "description": "what to look for, in the user's words."}
    assert schema["properties"]["k"]["minimum"] == 1 and schema["properties"]["k"]["maximum"] == 10
    assert schema["properties"]["k"]["default"] == 5
    assert "title" not in str(schema)
    assert explode.name == "boom" and plain.context_param is None and search_classics.context_param == "ctx"


async def test_a_call_validates_then_runs_the_function_with_the_context():
    outcome = await toolset().call("search_classics", {"query": "仁"}, CTX)
    assert outcome.ok and outcome.failure is None
    assert outcome.content == {"query": "仁", "k": 5, "exact": False, "person": 7}
    assert (await toolset().call("plain", {"word": "li"}, CTX)).content == "LI"


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
    result = (await toolset().call("search_classics", arguments, CTX)).content
    assert {k: result[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({}, "missing required argument 'query'"),
        (None, "missing required argument 'query'"),
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
async def test_bad_arguments_go_back_as_a_result_and_the_function_never_runs(arguments, problem):
    ran = []

    @tool(name="search_classics")
    async def spy(ctx: ToolContext, query: str, k: Annotated[int, Field(ge=1, le=10)] = 5, exact: bool = False) -> str:
        """Records that it ran."""
        ran.append(query)
        return "ran"

    outcome = await Toolset([spy]).call("search_classics", arguments, CTX)
    assert not outcome.ok and outcome.failure == "bad_arguments"
    assert outcome.error.startswith("invalid arguments for search_classics: ") and problem in outcome.error
    assert "schema" in outcome.hint
    assert ran == []


async def test_failures_become_outcomes_with_a_hint():
    tools = toolset(timeout_s=0.05)
    unknown = await tools.call("nope", {}, CTX)
    assert unknown.failure == "unknown_tool" and unknown.error_observation()["ok"] is False
    assert "search_classics" in unknown.hint and "plain" in unknown.hint
    crashed = await tools.call("boom", {}, CTX)
    assert crashed.failure == "failed" and "KeyError" in crashed.error
    assert "secret internal detail" not in crashed.error  # internals stay in the log
    told = await tools.call("picky", {"word": "仁"}, CTX)
    assert told.failure == "failed" and told.error == "nothing found for 仁" and told.hint == "Try a single character."
    slow_one = await tools.call("slow", {}, CTX)
    assert slow_one.failure == "timeout" and slow_one.error == "tool slow timed out after 0.05s"
    assert set(slow_one.error_observation()) == {"ok", "error", "hint"}
    own = await tools.call("own_timeout", {}, CTX)  # a TimeoutError of the tool's own is a failure, not ours
    assert own.failure == "failed" and "TimeoutError" in own.error


async def test_one_time_limit_per_call_the_call_may_shorten_it():
    tools = toolset(timeout_s=30)
    started = asyncio.get_running_loop().time()
    outcome = await tools.call("slow", {}, CTX, timeout_s=0.05)
    assert outcome.failure == "timeout" and "0.05s" in outcome.error
    assert asyncio.get_running_loop().time() - started < 1


async def test_to_openai_tools_filters_by_allowed_names():
    tools = toolset()
    listed = tools.to_openai_tools(["plain", "search_classics", "not_a_tool"])
    assert [t["function"]["name"] for t in listed] == ["search_classics", "plain"]
    assert listed[0]["type"] == "function"
    assert listed[0]["function"]["parameters"]["required"] == ["query"]
    assert listed[1]["function"]["description"] == "A tool without context."
    assert len(tools.to_openai_tools()) == 6
    assert tools.to_openai_tools([]) == []


async def test_duplicate_name_refused_with_warning_the_first_stays():
    @tool(name="search_classics")
    async def second(ctx: ToolContext, query: str) -> str:
        """A second tool that wants the same name."""
        return "second"

    tools = toolset()
    with structlog.testing.capture_logs() as logs:
        assert tools.add(second) is False
        tools.extend([second])
    assert [e["event"] for e in logs] == ["tool_duplicate_refused"] * 2 and logs[0]["log_level"] == "warning"
    assert tools.names == ["search_classics", "boom", "picky", "slow", "own_timeout", "plain"]
    assert (await tools.call("search_classics", {"query": "x"}, CTX)).content["query"] == "x"


async def test_tools_added_later_are_offered_at_once():
    tools = Toolset([plain])

    @tool
    async def late(ctx: ToolContext, query: str) -> str:
        """Added after the toolset was built (the memory tools are)."""
        return "late " + query

    tools.add(late)
    assert tools.names == ["plain", "late"]
    assert (await tools.call("late", {"query": "x"}, CTX)).content == "late x"


def test_a_tool_needs_a_description_and_an_async_function():
    async def nameless(ctx: ToolContext) -> str:
        return ""

    def blocking(word: str) -> str:
        """Sync: would block the event loop."""
        return word

    with pytest.raises(ValueError, match="description"):
        tool(nameless)
    assert tool(description="Explicit description.")(nameless).description == "Explicit description."
    with pytest.raises(TypeError, match="async"):
        tool(blocking)  # type: ignore[arg-type]
