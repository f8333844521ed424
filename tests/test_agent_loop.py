"""The ReAct agent against the fake OpenAI server, through the real client and the real openai SDK."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import pytest_asyncio
from structlog.testing import capture_logs

from core.agent import Agent, AgentResult, ReplyTimeout
from core.agent.loop import FORCE_ANSWER_NOTE
from core.citations import CitationBook
from core.events import TextDelta, TextReset, ToolStep
from core.llm.client import OpenAIChatClient
from core.llm.errors import LLMConfigError, LLMUnavailable
from core.llm.retry import RetryPolicy
from core.texts import say
from core.tools import ToolContext, Toolset, tool
from tests.fakes.openai_server import Reply, fake_llm  # noqa: F401

CTX = ToolContext(person_id=3, platform="console", chat_id="c", is_group=False, trace_id="trace-a")
USER = [{"role": "system", "content": "你是孔子。"}, {"role": "user", "content": "孔子怎么看管仲？"}]
PASSAGES = {
    "管仲": [
        {"id": "lunyu:3.22", "ref": "《论语·八佾》第22章", "text": "子曰：管仲之器小哉！"},
        {"id": "lunyu:14.17", "ref": "《论语·宪问》第17章", "text": "微管仲，吾其被发左衽矣。"},
    ],
    "仁": [{"id": "lunyu:12.22", "ref": "《论语·颜渊》第22章", "text": "樊迟问仁。子曰：爱人。"}],
}


class Tools:
    """A classics search plus helpers whose behaviour the tests observe."""

    def __init__(self) -> None:
        self.toolset = Toolset()
        self.calls: list[tuple[str, dict]] = []
        self.a_started, self.b_started = asyncio.Event(), asyncio.Event()
        self._register()

    def _register(self) -> None:
        @tool
        async def search_classics(ctx: ToolContext, query: str, k: int = 5) -> dict:
            """Search the Analects and the Book of Songs for passages. Use for quotes and teachings."""
            self.calls.append(("search_classics", {"query": query, "k": k}))
            return {"passages": PASSAGES.get(query, [])[:k]}

        @tool
        async def wait_a(ctx: ToolContext) -> str:
            """Finishes only once wait_b has started."""
            self.a_started.set()
            await self.b_started.wait()
            return "a done"

        @tool
        async def wait_b(ctx: ToolContext) -> str:
            """Finishes only once wait_a has started."""
            self.b_started.set()
            await self.a_started.wait()
            return "b done"

        @tool
        async def slow(ctx: ToolContext) -> str:
            """Never finishes."""
            await asyncio.Event().wait()
            return "never"

        @tool
        async def web_search(ctx: ToolContext, query: str) -> str:
            """Search the web."""
            return "web " * 5000

        self.toolset.extend([search_classics, wait_a, wait_b, slow, web_search])

    def client(self) -> Toolset:
        return self.toolset


async def _no_sleep(_: float) -> None:
    return None


@pytest_asyncio.fixture
async def make_agent(fake_llm):
    """Build agents over the fake endpoint; their HTTP clients are closed after the test."""
    clients: list[OpenAIChatClient] = []

    def build(tools: Tools, **limits) -> Agent:
        llm = OpenAIChatClient(
            base_url=fake_llm.base_url,
            api_key="sk-test",
            model="fuzi-test",
            timeout_s=5,
            retry=RetryPolicy(attempts=1),
            sleep=_no_sleep,
        )
        clients.append(llm)
        return Agent(llm, tools.client(), **{"tool_timeout_s": 2.0, **limits})

    yield build
    for client in clients:
        await client.aclose()


async def run(agent: Agent, allowed=None, book: CitationBook | None = None, messages=USER):
    events = []
    async for event in agent.run(
        messages, allowed_tools=allowed, ctx=CTX, citations=book if book is not None else CitationBook()
    ):
        events.append(event)
    assert isinstance(events[-1], AgentResult)
    assert not any(isinstance(e, AgentResult) for e in events[:-1])
    return events, events[-1]


def streamed_text(events) -> str:
    """What an adapter shows: deltas appended, a reset discards what came before."""
    text = ""
    for event in events:
        if isinstance(event, TextReset):
            text = ""
        elif isinstance(event, TextDelta):
            text += event.text
    return text


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m["role"] == "tool"]


async def test_tool_call_then_streamed_cited_answer(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲"})], usage=(100, 10))
    fake_llm.stream_text("管仲器小[1]，然其功在天下[2]。又[9]。", chunk=3, usage=(200, 20))
    tools = Tools()
    events, result = await run(make_agent(tools))

    assert [t["function"]["name"] for t in fake_llm.requests[0]["tools"]] == [
        "search_classics",
        "wait_a",
        "wait_b",
        "slow",
        "web_search",
    ]
    assert fake_llm.requests[0]["stream"] is True
    second = fake_llm.requests[1]["messages"]
    assert second[2]["role"] == "assistant" and second[2]["tool_calls"][0]["function"]["name"] == "search_classics"
    (observation,) = tool_messages(fake_llm.requests[1])
    assert observation["tool_call_id"] == second[2]["tool_calls"][0]["id"]
    assert "[1] 《论语·八佾》第22章\n子曰：管仲之器小哉！" in observation["content"]
    assert "[2] 《论语·宪问》第17章" in observation["content"] and "lunyu:" not in observation["content"]

    assert result.text == "管仲器小[1]，然其功在天下[2]。又。"
    assert streamed_text(events) == result.text
    assert [(c.n, c.id) for c in result.citations] == [(1, "lunyu:3.22"), (2, "lunyu:14.17")]
    steps = [e for e in events if isinstance(e, ToolStep)]
    assert [(s.name, s.phase, s.ok) for s in steps] == [
        ("search_classics", "start", None),
        ("search_classics", "end", True),
    ]
    assert steps[1].latency_ms is not None
    assert result.rounds == 1 and result.stop_reason == "answer"
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (300, 30)
    assert result.steps[0].args == {"query": "管仲"} and result.steps[0].ok
    assert [c.prompt_tokens for c in result.llm_calls] == [100, 200]


async def test_no_tool_call_means_the_streamed_text_is_the_answer(fake_llm, make_agent):
    fake_llm.stream_text("学而时习之，不亦说乎。", chunk=2)
    events, result = await run(make_agent(Tools()))
    assert len(fake_llm.requests) == 1
    assert result.text == "学而时习之，不亦说乎。" and result.rounds == 0 and result.steps == ()
    assert len([e for e in events if isinstance(e, TextDelta)]) > 3  # really streamed
    assert result.citations == ()


async def test_two_tool_calls_in_one_round_run_concurrently(fake_llm, make_agent):
    # Each tool waits for the other to start: run one after the other, the first would time out.
    fake_llm.stream_tool_calls([("wait_a", {}), ("wait_b", {})])
    fake_llm.stream_text("两事皆成。")
    events, result = await run(make_agent(Tools(), tool_timeout_s=2.0))
    assert [(s.tool, s.ok) for s in result.steps] == [("wait_a", True), ("wait_b", True)]
    observations = tool_messages(fake_llm.requests[1])
    assert [o["content"] for o in observations] == ["a done", "b done"]
    calls = fake_llm.requests[1]["messages"][2]["tool_calls"]
    assert [o["tool_call_id"] for o in observations] == [c["id"] for c in calls]
    phases = [(e.name, e.phase) for e in events if isinstance(e, ToolStep)]
    assert phases[:2] == [("wait_a", "start"), ("wait_b", "start")]
    assert sorted(phases[2:]) == [("wait_a", "end"), ("wait_b", "end")]


async def test_unknown_and_filtered_out_tools_get_a_hint(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("web_search", {"query": "管仲"}), ("summon_sage", {})])
    fake_llm.stream_text("吾只以经典答之。")
    _, result = await run(make_agent(Tools()), allowed=["search_classics", "slow"])
    assert [t["function"]["name"] for t in fake_llm.requests[0]["tools"]] == ["search_classics", "slow"]
    for observation in tool_messages(fake_llm.requests[1]):
        body = json.loads(observation["content"])
        assert body["ok"] is False and "unknown tool" in body["error"]
        assert body["hint"] == "Valid tools: search_classics, slow."
    assert [s.ok for s in result.steps] == [False, False]
    assert result.text == "吾只以经典答之。"


async def test_bad_arguments_coerced_or_refused_with_clear_messages(fake_llm, make_agent):
    fake_llm.stream_tool_calls(
        [
            ("search_classics", {"query": "仁", "k": "1"}),
            ("search_classics", {"k": "many"}),
            ("search_classics", '{"query": "仁", '),
        ]
    )
    fake_llm.stream_text("仁者爱人[1]。")
    tools = Tools()
    _, result = await run(make_agent(tools))
    good, refused, broken = tool_messages(fake_llm.requests[1])
    assert "[1] 《论语·颜渊》第22章" in good["content"]
    assert tools.calls == [("search_classics", {"query": "仁", "k": 1})]  # "1" became 1; the others never ran
    body = json.loads(refused["content"])
    assert body["ok"] is False
    assert "missing required argument 'query'" in body["error"]
    assert "argument 'k' must be an integer, got 'many'" in body["error"]
    assert "schema" in body["hint"]
    assert "not valid JSON" in json.loads(broken["content"])["error"]
    assert [s.ok for s in result.steps] == [True, False, False]
    assert result.citations[0].id == "lunyu:12.22"


async def test_repeated_call_returns_earlier_result_then_is_refused(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("search_classics", {"query": "仁", "k": 1})])
    fake_llm.stream_tool_calls([("search_classics", {"k": 1, "query": "仁"})])  # same call, keys reordered
    fake_llm.stream_tool_calls([("search_classics", {"query": "仁", "k": 1})])
    fake_llm.stream_text("爱人[1]。")
    tools = Tools()
    _, result = await run(make_agent(tools))
    assert len(tools.calls) == 1  # the handler ran once
    first = tool_messages(fake_llm.requests[1])[0]["content"]
    second = tool_messages(fake_llm.requests[2])[1]["content"]
    third = json.loads(tool_messages(fake_llm.requests[3])[2]["content"])
    assert second.startswith(first) and "already called search_classics" in second
    assert third["ok"] is False and "refused" in third["error"] and third["hint"]
    assert [(s.repeat, s.ok) for s in result.steps] == [(0, True), (1, True), (2, False)]
    assert result.text == "爱人[1]。"


async def test_round_limit_forces_a_final_answer_without_tools(fake_llm, make_agent):
    queries = iter(["仁", "管仲", "礼", "乐"])
    fake_llm.set_default(
        lambda body: [("search_classics", {"query": next(queries)})] if body.get("tools") else "依所得而答[2]。"
    )
    _, result = await run(make_agent(Tools(), max_rounds=2))
    assert len(fake_llm.requests) == 3
    assert all("tools" in r for r in fake_llm.requests[:2])
    last = fake_llm.requests[-1]
    assert "tools" not in last
    assert last["messages"][-1] == {"role": "system", "content": FORCE_ANSWER_NOTE}
    assert result.stop_reason == "max_rounds" and result.rounds == 2
    assert result.text == "依所得而答[1]。" and result.citations[0].id == "lunyu:3.22"
    assert result.llm_calls[-1].forced is True


async def test_tool_timeout_becomes_an_observation_and_the_loop_continues(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("slow", {}), ("search_classics", {"query": "仁"})])
    fake_llm.stream_text("虽一事未成，仁者爱人[1]。")
    events, result = await run(make_agent(Tools(), tool_timeout_s=0.05))
    slow_obs = json.loads(tool_messages(fake_llm.requests[1])[0]["content"])
    assert slow_obs["ok"] is False and "timed out" in slow_obs["error"] and slow_obs["hint"]
    assert [(s.tool, s.ok) for s in result.steps] == [("slow", False), ("search_classics", True)]
    assert result.stop_reason == "answer" and result.text == "虽一事未成，仁者爱人[1]。"
    assert [e.ok for e in events if isinstance(e, ToolStep) and e.phase == "end"] == [True, False]


class ManualClock:
    """A fake monotonic clock that moves only when a test (or the fake server) advances it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float, then):
        self.now += seconds
        return then


async def test_reply_deadline_after_a_tool_round_forces_the_answer(fake_llm, make_agent):
    clock = ManualClock()
    # The first model call "takes" 31 s of the 30 s budget: after its tool round the answer is forced.
    fake_llm.handler(lambda body: clock.advance(31, [("search_classics", {"query": "仁"})]))
    fake_llm.stream_text("时不我待[1]。")
    _, result = await run(make_agent(Tools(), reply_timeout_s=30.0, clock=clock))
    assert result.stop_reason == "timeout" and result.rounds == 1
    assert len(fake_llm.requests) == 2 and "tools" not in fake_llm.requests[-1]
    assert result.text == "时不我待[1]。" and result.citations[0].id == "lunyu:12.22"


async def test_deadline_inside_a_streaming_round_resets_the_text_and_forces_the_answer(fake_llm, make_agent):
    clock = ManualClock()
    fake_llm.handler(lambda body: clock.advance(200, Reply(text="吾当细细道来，先说其一……", chunk=2)))
    fake_llm.stream_text("简言之：仁者爱人。")
    events, result = await run(make_agent(Tools(), reply_timeout_s=120.0, clock=clock))
    assert result.stop_reason == "timeout" and result.text == "简言之：仁者爱人。"
    assert any(isinstance(e, TextReset) and e.reason == "timeout" for e in events)
    assert streamed_text(events) == result.text
    assert "tools" not in fake_llm.requests[1]


async def test_forced_answer_that_never_comes_raises_reply_timeout(fake_llm, make_agent):
    fake_llm.hang().hang()
    agent = make_agent(Tools(), reply_timeout_s=0.1, final_answer_timeout_s=0.1)
    with pytest.raises(ReplyTimeout) as info:
        await run(agent)
    assert isinstance(info.value, LLMUnavailable)  # the fallback ladder steps down on it


async def test_empty_answers_end_in_the_fixed_in_persona_sentence(fake_llm, make_agent):
    fake_llm.stream_text("")
    fake_llm.stream_text("  ")
    events, result = await run(make_agent(Tools()))
    assert "tools" not in fake_llm.requests[1]
    assert result.text == say("AGENT_NO_WORDS", "zh") and result.canned and result.stop_reason == "empty"
    assert streamed_text(events) == say("AGENT_NO_WORDS", "zh")
    english = [{"role": "user", "content": "What is benevolence?"}]
    fake_llm.stream_text("").stream_text("")
    _, result = await run(make_agent(Tools()), messages=english)
    assert result.text == say("AGENT_NO_WORDS", "en")


async def test_text_before_tool_calls_is_reset(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("search_classics", {"query": "仁"})], text="吾当查证原文。")
    fake_llm.stream_text("仁者爱人[1]。")
    events, result = await run(make_agent(Tools()))
    kinds = [e.kind for e in events]
    assert kinds.index("text_reset") < kinds.index("tool_step")
    assert streamed_text(events) == result.text == "仁者爱人[1]。"
    assert fake_llm.requests[1]["messages"][2]["content"] == "吾当查证原文。"


async def test_no_allowed_tools_sends_no_tools(fake_llm, make_agent):
    fake_llm.stream_text("子曰：温故而知新。")
    _, result = await run(make_agent(Tools()), allowed=[])
    assert "tools" not in fake_llm.requests[0]
    assert result.text == "子曰：温故而知新。"


@pytest.mark.parametrize(("status", "error"), [(401, LLMConfigError), (503, LLMUnavailable)])
async def test_llm_errors_propagate(fake_llm, status, error, make_agent):
    fake_llm.error(status)
    with pytest.raises(error):
        await run(make_agent(Tools()))


async def test_llm_error_after_a_tool_round_propagates(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("search_classics", {"query": "仁"})]).error(500)
    with pytest.raises(LLMUnavailable):
        await run(make_agent(Tools()))


async def test_steps_are_logged_with_short_args(fake_llm, make_agent):
    long_query = "仁" * 200
    fake_llm.stream_tool_calls([("search_classics", {"query": long_query, "k": 2})])
    fake_llm.stream_text("答。")
    with capture_logs() as logs:
        await run(make_agent(Tools()))
    (step,) = [e for e in logs if e["event"] == "agent_tool_step"]
    assert step["tool"] == "search_classics" and step["ok"] is True and step["round"] == 1
    assert step["args"]["k"] == 2 and step["args"]["query"] == "仁" * 80 + "…"
    assert isinstance(step["latency_ms"], float)
    rounds = [e for e in logs if e["event"] == "agent_round"]
    assert len(rounds) == 2 and all(r["prompt_tokens"] > 0 for r in rounds)
    assert not any(long_query in json.dumps(e, ensure_ascii=False) for e in logs)


async def test_same_book_numbers_across_rounds(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("search_classics", {"query": "仁"})])
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲"})])
    fake_llm.stream_text("爱人[1]；器小[2]；左衽[3]。")
    book = CitationBook()
    _, result = await run(make_agent(Tools()), book=book)
    assert "[2] 《论语·八佾》第22章" in tool_messages(fake_llm.requests[2])[1]["content"]
    assert [c.id for c in result.citations] == ["lunyu:12.22", "lunyu:3.22", "lunyu:14.17"]
    assert len(book) == 3


async def test_each_tool_end_is_reported_when_that_tool_finishes(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("slow", {}), ("search_classics", {"query": "仁"})])
    fake_llm.stream_text("答。")
    events, _ = await run(make_agent(Tools(), tool_timeout_s=0.2))
    ends = [e.name for e in events if isinstance(e, ToolStep) and e.phase == "end"]
    assert ends == ["search_classics", "slow"]  # the quick one first; results still in call order
    assert [m["content"][:5] for m in tool_messages(fake_llm.requests[1])][0].startswith("{")


async def test_identical_calls_in_one_round_run_once(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("search_classics", {"query": "仁"}), ("search_classics", {"query": "仁"})])
    fake_llm.stream_text("答[1]。")
    tools = Tools()
    _, result = await run(make_agent(tools))
    first, second = tool_messages(fake_llm.requests[1])
    assert len(tools.calls) == 1
    assert second["content"].startswith(first["content"]) and "already called" in second["content"]
    assert [s.repeat for s in result.steps] == [0, 1]


async def test_closing_the_reply_mid_tool_round_cancels_running_tools(fake_llm, make_agent):
    cancelled = asyncio.Event()
    tools = Tools()

    @tool
    async def hang_until_cancelled(ctx: ToolContext) -> str:
        """Waits until cancelled."""
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()
        return ""

    tools.toolset.add(hang_until_cancelled)
    fake_llm.stream_tool_calls([("hang_until_cancelled", {})])
    agent = make_agent(tools, tool_timeout_s=30)
    events = agent.run(USER, allowed_tools=None, ctx=CTX, citations=CitationBook())
    async for event in events:
        if isinstance(event, ToolStep) and event.phase == "start":
            await asyncio.sleep(0.05)  # let the tool start
            break
    await events.aclose()
    await asyncio.wait_for(cancelled.wait(), 2)


async def test_long_observations_are_cut(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("web_search", {"query": "x"})])
    fake_llm.stream_text("答。")
    await run(make_agent(Tools(), max_observation_chars=1000))
    (observation,) = tool_messages(fake_llm.requests[1])
    assert len(observation["content"]) < 1100 and "more characters not shown" in observation["content"]


async def test_whole_reply_stays_within_reply_timeout(fake_llm, make_agent):
    fake_llm.stream_tool_calls([("slow", {})])  # the tool would run 30 s; the reply has 0.4 s
    fake_llm.stream_text("时已晚，简答之。")
    started = time.monotonic()
    _, result = await run(make_agent(Tools(), tool_timeout_s=30, reply_timeout_s=0.4, final_answer_timeout_s=0.1))
    assert time.monotonic() - started < 2.0
    assert result.stop_reason == "timeout" and result.text == "时已晚，简答之。"
    assert result.steps[0].ok is False and "timed out" in result.steps[0].error
    assert "tools" not in fake_llm.requests[-1]


async def test_missing_or_repeated_call_ids_are_made_distinct(fake_llm, make_agent):
    fake_llm.stream_tool_calls(
        [("search_classics", {"query": "仁"}, "dup"), ("search_classics", {"query": "管仲"}, "dup")]
    )
    fake_llm.stream_text("答。")
    await run(make_agent(Tools()))
    assistant = fake_llm.requests[1]["messages"][2]
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert ids[0] == "dup" and ids[1] != "dup"
    assert [m["tool_call_id"] for m in tool_messages(fake_llm.requests[1])] == ids
