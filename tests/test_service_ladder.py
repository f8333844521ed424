"""The fallback ladder end to end: real openai SDK → fake server, real agent and toolset.

L0 with a tool call and footnotes; L0→L1 on 503s; L1→L2 with real passages when everything fails
(and the breaker stays open); 401 is not degraded; no key → L2 with the once-per-chat notice.
"""

from __future__ import annotations

import pytest

from core.agent import Agent
from core.events import FinalReply, Notice, TextDelta, TextReset, ToolStep
from core.llm.breaker import CircuitBreakerLLM
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.tools.classics import search_classics_tool
from core.tools.tool import ToolContext, tool
from core.tools.toolset import Toolset
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_engine import (
    CorpusRetriever,
    collect,
    final_of,
    incoming,
    make_service,
    notices,
    sqlite_storage,
    streamed_text,
)


class Sleeps:
    """Records retry waits instead of sleeping."""

    def __init__(self):
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture(scope="module")
def corpus():
    return CorpusRetriever()


def web_stub_tool():
    """A web_search tool that finds nothing: present so the skills' tool filters can be observed."""

    @tool
    async def web_search(ctx: ToolContext, query: str) -> dict:
        """Search the web. Use only for events after the classics; never for the texts themselves.

        Args:
            query: what to look for.
        """
        return {"results": []}

    return web_search


@pytest.fixture
def engine(tmp_path, fake_llm, corpus):
    """Build a service over the fake endpoint: client → breaker → agent, plus the corpus retriever."""

    def build(*, failures: int = 5, attempts: int = 1, api_key: str = "sk-test", storage=None, **kw):
        client = OpenAIChatClient(
            base_url=fake_llm.base_url,
            api_key=api_key,
            model="fake-model",
            timeout_s=5,
            retry=RetryPolicy(attempts=attempts),
            sleep=Sleeps(),
        )
        llm = CircuitBreakerLLM(client, failures=failures, reset_s=60)
        agent = Agent(llm, Toolset([search_classics_tool(corpus), web_stub_tool()]), max_rounds=3, reply_timeout_s=20)
        store = storage or sqlite_storage(tmp_path)
        return make_service(store, llm=llm, agent=agent, retriever=corpus, **kw), llm, store

    return build


async def test_l0_tool_call_then_cited_answer(engine, fake_llm):
    service, _, storage = engine()
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉"})])
    fake_llm.stream_text("管仲之器小哉，是说他器量狭小[1]。又有人说[7]。", chunk=5)
    events = await collect(service, incoming("夫子如何评价管仲？"))
    final = final_of(events)
    assert final.level == 0
    assert [(c.n, c.id) for c in final.citations] == [(1, "lunyu:3.22")]
    assert final.citations[0].ref == "《论语·八佾》第22章"
    assert "[7]" not in final.text and "[1]" in final.text
    assert "[7]" not in streamed_text(events)
    steps = [e for e in events if isinstance(e, ToolStep)]
    assert [(s.name, s.phase) for s in steps] == [("search_classics", "start"), ("search_classics", "end")]
    assert steps[1].ok is True
    assert fake_llm.requests[1]["messages"][-1]["role"] == "tool"
    assert "[1] 《论语·八佾》第22章" in fake_llm.requests[1]["messages"][-1]["content"]
    rows = await storage.messages.recent("console:c1", 5)
    assert [(r.role, r.level) for r in rows] == [("user", None), ("assistant", 0)]


async def test_skill_filters_the_tools_the_model_sees(engine, fake_llm):
    service, _, _ = engine()
    fake_llm.stream_text("可。")
    await collect(service, incoming("问"))
    teaching = {t["function"]["name"] for t in fake_llm.requests[-1]["tools"]}
    await collect(service, incoming("poetry", command="skill"))
    fake_llm.stream_text("可。")
    await collect(service, incoming("问诗"))
    poetry = {t["function"]["name"] for t in fake_llm.requests[-1]["tools"]}
    assert teaching == {"search_classics", "web_search"} and poetry == {"search_classics"}
    system = fake_llm.requests[-1]["messages"][0]["content"]
    assert "赋" in system and "skill" not in system.lower()


async def test_l0_to_l1_when_the_endpoint_returns_503(engine, fake_llm):
    service, _, _ = engine(attempts=3)
    for _ in range(3):
        fake_llm.error(503)
    fake_llm.stream_text("吾今日未带书简，姑以所思答之[1]：学而不思则罔。")
    final = final_of(await collect(service, incoming("学与思如何？")))
    assert final.level == 1
    assert final.citations == () and "[1]" not in final.text  # no passages in L1: every marker is invented
    assert final.text.startswith("吾今日未带书简")
    assert len(fake_llm.requests) == 4
    assert "tools" in fake_llm.requests[0] and "tools" not in fake_llm.requests[3]
    assert fake_llm.requests[3]["messages"][0] == fake_llm.requests[0]["messages"][0]  # same skill prompt


async def test_everything_down_gives_l2_with_real_passages_and_the_breaker_opens(engine, fake_llm):
    service, llm, storage = engine(failures=2)
    fake_llm.strict = True  # every request: 500
    events = await collect(service, incoming("管仲之器小哉是什么意思"))
    final = final_of(events)
    assert final.level == 2
    assert final.citations and final.citations[0].id == "lunyu:3.22"
    assert final.text.startswith("今日夫子不能细细论说，只以典籍原文相答")
    assert "管仲之器小哉" in final.text and "[1]" in final.text
    assert len(fake_llm.requests) == 2 and llm.state == "open"

    final = final_of(await collect(service, incoming("What is 学而时习之 about?")))
    assert final.level == 2 and final.text.startswith("Today I can only answer from the texts")
    assert len(fake_llm.requests) == 2  # the open circuit rejected both levels at once
    rows = await storage.messages.recent("console:c1", 10)
    assert [(r.role, r.level, r.status) for r in rows] == [("user", None, "ok"), ("assistant", 2, "ok")] * 2


async def test_l1_fails_after_streaming_resets_before_l2(engine, fake_llm):
    service, _, _ = engine()
    fake_llm.error(503)
    fake_llm.stream_then_fail("夫子曰：君子不器，此言", after=2, chunk=3)
    events = await collect(service, incoming("君子不器"))
    kinds = [e.kind for e in events]
    assert kinds.index("text_delta") < kinds.index("text_reset") < kinds.index("final")
    assert final_of(events).level == 2
    assert final_of(events).citations[0].id == "lunyu:2.12"
    assert streamed_text(events) == ""


async def test_401_is_a_config_notice_without_degrading(engine, fake_llm):
    service, _, storage = engine(attempts=3)
    fake_llm.error(401, message="Incorrect API key provided: sk-te***st")
    message = incoming("何为仁？")
    events = await collect(service, message)
    assert [e.kind for e in events] == ["notice"]
    assert events[0].reason == "config_error" and message.trace_id in events[0].text
    assert "sk-" not in events[0].text
    assert len(fake_llm.requests) == 1
    [row] = await storage.messages.recent("console:c1", 5)
    assert (row.role, row.text) == ("user", "何为仁？")  # the user's words are kept


async def test_no_key_answers_in_l2_and_says_so_once_per_chat(tmp_path, corpus):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, retriever=corpus)
    first = await collect(service, incoming("巧言令色"))
    assert [n.reason for n in notices(first)] == ["no_llm"]
    assert first.index(notices(first)[0]) < first.index(final_of(first))
    assert final_of(first).level == 2 and final_of(first).citations[0].id == "lunyu:1.3"
    second = await collect(service, incoming("学而时习之"))
    assert notices(second) == [] and final_of(second).level == 2
    other_chat = await collect(service, incoming("诗三百", chat="c2"))
    assert [n.reason for n in notices(other_chat)] == ["no_llm"]
    restarted = make_service(sqlite_storage(tmp_path), retriever=corpus)
    assert notices(await collect(restarted, incoming("君子", chat="c2"))) == []


async def test_poetry_l2_searches_the_book_of_songs_first(tmp_path, corpus):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, retriever=corpus)
    await collect(service, incoming("poetry", command="skill"))
    final = final_of(await collect(service, incoming("君子好逑")))
    assert final.citations[0].id == "shijing:1"
    assert all(c.id.startswith("shijing:") for c in final.citations)
    assert corpus.queries[-2:] == [("君子好逑", "all"), ("君子好逑", "shijing")]


async def test_poetry_l2_keeps_the_best_passage_from_the_analects_first(tmp_path, corpus):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, retriever=corpus)
    await collect(service, incoming("poetry", command="skill"))
    final = final_of(await collect(service, incoming("学而时习之，不亦说乎")))
    assert final.citations[0].id == "lunyu:1.1"
    assert [c.id.split(":")[0] for c in final.citations[1:]] == ["shijing"] * (len(final.citations) - 1)


async def test_l2_without_any_passage_answers_in_persona(tmp_path):
    service = make_service(sqlite_storage(tmp_path))
    events = await collect(service, incoming("hello there"))
    final = final_of(events)
    assert final.level == 2 and final.citations == () and "found nothing" in final.text
    assert not any(isinstance(e, TextDelta | TextReset) for e in events)
    assert isinstance(events[0], Notice) and isinstance(events[-1], FinalReply)
