"""The classics tools over a passage search: passages, corpus filter, limits, quotes, look-ups, bad calls."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.citations import CitationBook
from core.tools import ToolContext, Toolset, classics_tools
from core.tools.classics import PASSAGE_CHARS

CTX = ToolContext(person_id=1, platform="console", chat_id="c", is_group=False, trace_id="t")
TEXTS = [
    ("lunyu:1.1", "《论语·学而》第1章", "子曰：学而时习之，不亦说乎？"),
    ("lunyu:1.2", "《论语·学而》第2章", "有子曰：其为人也孝弟，而好犯上者，鲜矣。"),
    ("lunyu:1.3", "《论语·学而》第3章", "子曰：巧言令色，鲜矣仁！"),
    ("shijing:1", "《诗经·国风·周南·关雎》", "关关雎鸠，在河之洲。" * 100),
]


@dataclass(frozen=True)
class Hit:
    id: str
    ref: str
    text: str


@dataclass(frozen=True)
class Hits:
    results: list[Hit]


class Passages:
    """A PassageSearch over TEXTS that records its searches."""

    def __init__(self):
        self.calls = []
        self.hits = [Hit(*t) for t in TEXTS]

    async def search(self, query, *, k=5, corpus="all"):
        self.calls.append((query, k, corpus))
        return Hits([h for h in self.hits if corpus == "all" or h.id.startswith(corpus + ":")][:k])

    async def find_quote(self, text, *, k=5):
        found = [h for h in self.hits if text in h.text][:k]
        return (found, True) if found else (self.hits[:1], False)

    async def get(self, passage_id):
        return next((h for h in self.hits if h.id == passage_id), None)

    async def neighbours(self, passage_id, n=1):
        i = [h.id for h in self.hits].index(passage_id)
        return [h for h in self.hits[max(0, i - n) : i + n + 1] if h.id != passage_id and h.id[:5] == passage_id[:5]]


@pytest.fixture
def passages():
    return Passages()


def test_three_tools_that_say_when_not_to_use_them(passages):
    tools = Toolset(classics_tools(passages))
    listed = [t["function"] for t in tools.to_openai_tools()]
    assert [f["name"] for f in listed] == ["search_classics", "find_quote", "get_passage"]
    assert all("Do not use" in f["description"] for f in listed)
    assert listed[0]["parameters"]["properties"]["corpus"]["enum"] == [
        "all",
        "lunyu",
        "shijing",
        "mengzi",
        "daxue",
        "zhongyong",
        "sishu",
    ]
    assert listed[1]["parameters"]["required"] == ["text"] and listed[2]["parameters"]["required"] == ["id"]


async def test_search_returns_citable_passages(passages):
    outcome = await Toolset(classics_tools(passages)).call(
        "search_classics", {"query": "巧言令色", "k": "3", "corpus": "lunyu"}, CTX
    )
    assert outcome.ok
    assert passages.calls == [("巧言令色", 3, "lunyu")]
    assert [p["id"] for p in outcome.content["passages"]] == ["lunyu:1.1", "lunyu:1.2", "lunyu:1.3"]
    text = CitationBook().render(outcome.content)
    assert "[3] 《论语·学而》第3章\n子曰：巧言令色，鲜矣仁！" in text


async def test_long_passages_are_cut(passages):
    outcome = await Toolset(classics_tools(passages)).call("search_classics", {"query": "关雎"}, CTX)
    poem = outcome.content["passages"][3]
    assert poem["ref"] == "《诗经·国风·周南·关雎》"
    assert len(poem["text"]) == PASSAGE_CHARS + 2 and poem["text"].endswith("……")


async def test_find_quote_and_get_passage(passages):
    tools = Toolset(classics_tools(passages))
    quote = await tools.call("find_quote", {"text": "巧言令色"}, CTX)
    assert quote.content["exact"] is True and [p["id"] for p in quote.content["passages"]] == ["lunyu:1.3"]
    fuzzy = await tools.call("find_quote", {"text": "巧言乱德"}, CTX)
    assert fuzzy.ok and fuzzy.content["exact"] is False
    got = await tools.call("get_passage", {"id": " lunyu:1.2 "}, CTX)
    assert [(p["id"], p["role"]) for p in got.content["passages"]] == [
        ("lunyu:1.1", "before"),
        ("lunyu:1.2", "requested"),
        ("lunyu:1.3", "after"),
    ]
    assert got.content["requested"] == "lunyu:1.2"
    poem = await tools.call("get_passage", {"id": "shijing:1"}, CTX)
    assert poem.content["passages"][0]["text"] == TEXTS[3][2]  # the requested passage is never cut


@pytest.mark.parametrize(
    ("tool", "args", "failure", "words"),
    [
        ("search_classics", {"query": "  "}, "failed", "empty"),
        ("search_classics", {"query": "仁", "corpus": "xunzi"}, "bad_arguments", "corpus"),
        ("search_classics", {"query": "仁", "k": 0}, "bad_arguments", "'k'"),
        ("find_quote", {"text": " "}, "failed", "empty"),
        ("get_passage", {"id": "lunyu:9.99"}, "failed", "no passage has the id 'lunyu:9.99'"),
        ("get_passage", {"id": "not an id"}, "failed", "no passage"),
        ("get_passage", {}, "bad_arguments", "missing required argument 'id'"),
    ],
)
async def test_bad_calls_are_refused(passages, tool, args, failure, words):
    outcome = await Toolset(classics_tools(passages)).call(tool, args, CTX)
    assert not outcome.ok and outcome.failure == failure and words in outcome.error and outcome.hint
