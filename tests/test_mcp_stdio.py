"""`fuzi mcp` answers an MCP client: the SDK's own client starts `python -m bot mcp` over stdio.

Each test starts it in a fresh FUZI_HOME (the first start: the keyword route answers while the index
is built, with the hashing test embedder). Logs and progress go to stderr; stdout carries the
protocol only.
"""

from __future__ import annotations

import json
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from core.tools import classics_tools
from tests.helpers_process import ROOT, child_env

pytestmark = pytest.mark.processes


@asynccontextmanager
async def fuzi_mcp(home: Path, errlog):
    """A connected ClientSession to `python -m bot mcp` in `home` (stderr into `errlog`); on exit, no
    line of its stdout was anything but a protocol message."""
    faults: list[Exception] = []

    async def on_message(message) -> None:
        if isinstance(message, Exception):  # a stdout line that is not JSON-RPC (a stray print, a log line)
            faults.append(message)

    params = StdioServerParameters(command=sys.executable, args=["-m", "bot", "mcp"], env=child_env(home), cwd=ROOT)
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write, message_handler=on_message) as session,
    ):
        await session.initialize()
        yield session
    assert faults == []


def passages(result) -> list[tuple[str, str]]:
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content  # text and structured agree
    return [(p["id"], p["ref"]) for p in result.structured_content["passages"]]


async def test_lists_the_agents_tools_and_answers_ids_and_citations(tmp_path):
    home = tmp_path / "home"
    errlog = (tmp_path / "stderr.txt").open("w+", encoding="utf-8")
    with errlog:
        async with fuzi_mcp(home, errlog) as session:
            listed = (await session.list_tools()).tools
            assert [t.name for t in listed] == ["search_classics", "find_quote", "get_passage"]
            agent = {t.name: t for t in classics_tools(passages=None)}  # schemas do not depend on the passages
            for tool in listed:
                assert tool.input_schema == agent[tool.name].input_schema
                assert tool.description == agent[tool.name].description and "Do not use" in tool.description
            search = listed[0].input_schema
            assert search["required"] == ["query"] and search["properties"]["k"]["maximum"] == 10
            assert search["properties"]["corpus"]["enum"] == [
                "all",
                "lunyu",
                "shijing",
                "mengzi",
                "daxue",
                "zhongyong",
                "sishu",
            ]

            found = await session.call_tool("search_classics", {"query": "管仲之器小哉", "k": 3})
            assert passages(found)[0] == ("lunyu:3.22", "《论语·八佾》第22章") and len(passages(found)) == 3
            poem = await session.call_tool("search_classics", {"query": "關關雎鳩", "corpus": "shijing"})  # Traditional
            assert passages(poem)[0] == ("shijing:1", "《诗经·国风·周南·关雎》")
            quote = await session.call_tool("find_quote", {"text": "执子之手！"})
            assert [i for i, _ in passages(quote)] == ["shijing:31", "shijing:81"]
            assert quote.structured_content["exact"] is True
            got = await session.call_tool("get_passage", {"id": "lunyu:3.22"})
            assert [i for i, _ in passages(got)] == ["lunyu:3.21", "lunyu:3.22", "lunyu:3.23"]
            assert [p["role"] for p in got.structured_content["passages"]] == ["before", "requested", "after"]
        errlog.seek(0)
        stderr = errlog.read()
    assert "first start" in stderr and "tool_search_classics" in stderr  # progress and logs: stderr


async def test_bad_arguments_are_error_results_and_the_server_keeps_answering(tmp_path):
    with (tmp_path / "stderr.txt").open("w", encoding="utf-8") as errlog:
        async with fuzi_mcp(tmp_path / "home", errlog) as session:
            cases = [
                ("search_classics", {"query": "仁", "k": "five"}, "argument 'k' must be an integer, got 'five'"),
                ("search_classics", {"k": 2}, "missing required argument 'query'"),
                ("search_classics", {"query": "仁", "corpus": "xunzi"}, "argument 'corpus'"),
                ("search_classics", {"query": "   "}, "the query is empty"),
                ("get_passage", {"id": "lunyu:3.99"}, "no passage has the id 'lunyu:3.99'"),
                ("summon_sage", {}, "summon_sage"),
            ]
            for name, arguments, words in cases:
                result = await session.call_tool(name, arguments)
                assert result.is_error and words in result.content[0].text, (name, result.content)
            again = await session.call_tool("search_classics", {"query": "巧言令色", "k": "1"})
            assert passages(again) == [("lunyu:1.3", "《论语·学而》第3章")]
