"""search_classics over sync and async retrievers: passages, corpus filter, limits, empty query."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.citations import CitationBook
from core.tools import ToolClient, ToolContext
from core.tools import protocol as rpc
from core.tools.classics import PASSAGE_CHARS, classics_server

CTX = ToolContext(person_id=1, platform="console", chat_id="c", is_group=False, trace_id="t")
TEXTS = [
    ("lunyu:1.1", "《论语·学而》第1章", "子曰：学而时习之，不亦说乎？"),
    ("lunyu:1.3", "《论语·学而》第3章", "子曰：巧言令色，鲜矣仁！"),
    ("shijing:1", "《诗经·国风·周南·关雎》", "关关雎鸠，在河之洲。" * 100),
]


@dataclass
class Hit:
    id: str
    ref: str
    text: str


class SyncRetriever:
    def __init__(self):
        self.calls = []

    def search(self, query, *, k=5, corpus="all"):
        self.calls.append((query, k, corpus))
        hits = [Hit(*t) for t in TEXTS if corpus == "all" or t[0].startswith(corpus + ":")]
        return type("Hits", (), {"results": hits[:k]})()


class AsyncRetriever:
    async def search(self, query, *, k=5, corpus="all"):
        return [{"id": i, "ref": r, "text": t} for i, r, t in TEXTS][:k]


async def client_for(retriever) -> ToolClient:
    client = ToolClient([classics_server(retriever)])
    await client.connect()
    return client


async def test_search_returns_citable_passages_from_a_sync_retriever():
    retriever = SyncRetriever()
    client = await client_for(retriever)
    schema = client.to_openai_tools()[0]["function"]
    assert schema["name"] == "search_classics" and "Do not use" in schema["description"]
    assert schema["parameters"]["properties"]["corpus"]["enum"] == ["all", "lunyu", "shijing"]
    outcome = await client.call("search_classics", {"query": "巧言令色", "k": "2", "corpus": "lunyu"}, CTX)
    assert outcome.ok
    assert retriever.calls == [("巧言令色", 2, "lunyu")]
    assert [p["id"] for p in outcome.content["passages"]] == ["lunyu:1.1", "lunyu:1.3"]
    text = CitationBook().render(outcome.content)
    assert "[2] 《论语·学而》第3章\n子曰：巧言令色，鲜矣仁！" in text


async def test_async_retriever_and_long_passages_cut():
    outcome = await (await client_for(AsyncRetriever())).call("search_classics", {"query": "关雎"}, CTX)
    poem = outcome.content["passages"][2]
    assert poem["ref"] == "《诗经·国风·周南·关雎》"
    assert len(poem["text"]) == PASSAGE_CHARS + 2 and poem["text"].endswith("……")


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        ({"query": "  "}, rpc.TOOL_EXECUTION_ERROR, "empty"),
        ({"query": "仁", "corpus": "mengzi"}, rpc.INVALID_PARAMS, "corpus"),
        ({"query": "仁", "k": 0}, rpc.INVALID_PARAMS, "'k'"),
    ],
)
async def test_bad_calls_are_refused(args, code, words):
    outcome = await (await client_for(SyncRetriever())).call("search_classics", args, CTX)
    assert not outcome.ok and outcome.code == code and words in outcome.error
