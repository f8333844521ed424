"""One reply deadline for the whole fallback ladder: real openai SDK → fake server, real agent.

A hung endpoint gets an L2 answer with real passages by the deadline (not after the client's own
timeouts and retries on two levels); L1 only gets the time L0 left; a healthy L0 and a 401 behave
as before. Deadlines are a fraction of a second, so nothing waits long.
"""

from __future__ import annotations

import time

import pytest
import structlog

from core.agent import Agent
from core.agent.loop import FORCE_ANSWER_NOTE
from core.engine.ladder import DeadlineExceeded, FallbackLadder, LadderRequest, LevelStart
from core.engine.output_guard import GuardedLadder, ReplyProgress
from core.events import FinalReply, TextDelta, TextReset
from core.llm.breaker import CircuitBreakerLLM
from core.llm.client import OpenAIChatClient
from core.llm.errors import LLMUnavailable
from core.llm.retry import RetryPolicy
from core.skills import SkillRegistry
from core.tools.tool import ToolContext
from core.tools.toolset import Toolset
from tests.fakes.openai_server import Reply, fake_llm  # noqa: F401
from tests.helpers_engine import (
    CorpusRetriever,
    OpenGuard,
    collect,
    final_of,
    incoming,
    make_service,
    sqlite_storage,
    streamed_text,
)
from tests.test_service_ladder import Sleeps, search_classics_tool

SLACK_S = 0.6  # L2 retrieval, SQLite writes and the event loop on a busy 2-core machine


@pytest.fixture(scope="module")
def corpus():
    return CorpusRetriever()


@pytest.fixture
def engine(tmp_path, fake_llm, corpus):
    """A service over the fake endpoint whose client would wait 30 s per attempt, 3 attempts."""

    def build(deadline_s: float, **kw):
        client = OpenAIChatClient(
            base_url=fake_llm.base_url,
            api_key="sk-test",
            model="fake-model",
            timeout_s=30,
            retry=RetryPolicy(attempts=3),
            sleep=Sleeps(),
        )
        llm = CircuitBreakerLLM(client, failures=5, reset_s=60)
        agent = Agent(llm, Toolset([search_classics_tool(corpus)]), max_rounds=3, reply_timeout_s=120)
        storage = sqlite_storage(tmp_path)
        service = make_service(storage, llm=llm, agent=agent, retriever=corpus, reply_deadline_s=deadline_s, **kw)
        return service, storage

    return build


async def timed(service, message) -> tuple[list, float]:
    started = time.monotonic()
    events = await collect(service, message)
    return events, time.monotonic() - started


def deadline_logs(logs: list[dict]) -> list[dict]:
    return [e for e in logs if e["event"] == "fallback" and e.get("reason") == "deadline"]


async def test_hung_endpoint_answers_from_l2_by_the_deadline(engine, fake_llm):
    # 2 s: under a doubly loaded CI machine a 0.8 s budget was spent before the first request left
    service, storage = engine(2.0)
    for _ in range(6):
        fake_llm.hang()
    with structlog.testing.capture_logs() as logs:
        events, elapsed = await timed(service, incoming("管仲之器小哉是什么意思"))
    final = final_of(events)
    assert elapsed < 2.0 + SLACK_S
    assert final.level == 2 and final.citations[0].id == "lunyu:3.22"
    assert "管仲之器小哉" in final.text and final.text.startswith("今日夫子不能细细论说")
    # L0 used all the time (one clock per reply: its rounds got 3/4 of it, its forced answer the
    # rest); L1 was not started
    assert len(fake_llm.requests) == 2 and FORCE_ANSWER_NOTE in str(fake_llm.requests[1]["messages"])
    assert [(e["from_level"], e["to_level"]) for e in deadline_logs(logs)] == [(0, 2)]
    rows = await storage.messages.recent("console:c1", 5)
    assert [(r.role, r.level, r.status) for r in rows] == [("user", None, "ok"), ("assistant", 2, "ok")]


async def test_l1_gets_only_the_time_l0_left(engine, fake_llm):
    service, _ = engine(1.0)  # L2 reserve: a quarter, so the LLM levels end at 0.75 s
    fake_llm.error(503, delay=0.4)  # 503 after 0.4 s; no retry fits in the 0.35 s left to L0 and L1
    fake_llm.push(
        Reply(text="夫子曰：君子不器，此言器物各有所用", chunk=3, chunk_delay=5.0)
    )  # L1: one chunk, then stalls
    with structlog.testing.capture_logs() as logs:
        events, elapsed = await timed(service, incoming("君子不器"))
    final = final_of(events)
    assert final.level == 2 and final.citations[0].id == "lunyu:2.12"
    assert len(fake_llm.requests) == 2 and "tools" not in fake_llm.requests[1]
    assert 0.7 < elapsed < 1.0 + SLACK_S
    kinds = [e.kind for e in events]
    assert kinds.index("text_delta") < kinds.index("text_reset") < kinds.index("final")
    assert streamed_text(events) == ""  # what L1 had shown was taken back
    steps = [(e["from_level"], e["to_level"], e["reason"]) for e in logs if e["event"] == "fallback"]
    assert steps == [(0, 1, "unavailable"), (1, 2, "deadline")]


async def test_a_healthy_l0_is_unaffected(engine, fake_llm):
    service, _ = engine(1.0)
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉"})])
    fake_llm.stream_text("管仲之器小哉，是说他器量狭小[1]。", chunk=5, delay=0.2)
    events, elapsed = await timed(service, incoming("夫子如何评价管仲？"))
    final = final_of(events)
    assert final.level == 0 and [c.id for c in final.citations] == ["lunyu:3.22"]
    assert not any(isinstance(e, TextReset) for e in events)
    assert streamed_text(events) == final.text
    assert elapsed < 1.0


async def test_401_is_still_a_config_notice(engine, fake_llm):
    service, _ = engine(0.8)
    fake_llm.error(401, message="Incorrect API key provided")
    events = await collect(service, incoming("何为仁？"))
    assert [e.kind for e in events] == ["notice"] and events[0].reason == "config_error"
    assert len(fake_llm.requests) == 1


async def test_a_request_past_its_deadline_goes_straight_to_l2(fake_llm, corpus):
    """The deadline is injectable: one already past calls no model at all."""
    now = [100.0]
    ladder = FallbackLadder(agent=None, llm=_never_called(), retriever=corpus, deadline_s=60, clock=lambda: now[0])
    request = _request("学而时习之", deadline=now[0] + 1.0)  # inside the 5 s L2 reserve
    events = [e async for e in ladder.run(request)]
    assert [e.level for e in events if isinstance(e, LevelStart)] == [2]
    assert events[-1].level == 2 and events[-1].citations[0].id == "lunyu:1.1"
    assert ladder.deadline() == 160.0


async def test_a_regeneration_shares_the_first_attempts_deadline(fake_llm, corpus):
    """The output guard's second attempt does not get a fresh deadline."""
    client = OpenAIChatClient(
        base_url=fake_llm.base_url, api_key="k", model="m", timeout_s=30, retry=RetryPolicy(attempts=1), sleep=Sleeps()
    )
    ladder = FallbackLadder(agent=None, llm=client, retriever=corpus, deadline_s=0.6)
    fake_llm.hang()
    fake_llm.hang()
    guarded = GuardedLadder(ladder, OpenGuard(regenerate_on="今日夫子不能细细论说"))  # the L2 preface
    started = time.monotonic()
    events = [e async for e in guarded.run(_request("学而时习之"), ReplyProgress())]
    assert time.monotonic() - started < 0.6 + SLACK_S
    assert events[-1].answer.level == 2 and events[-1].status == "blocked"
    assert len(fake_llm.requests) == 1  # the regeneration went straight to L2, no second model call


def test_deadline_exceeded_degrades():
    assert issubclass(DeadlineExceeded, LLMUnavailable)


async def test_stream_cut_at_the_deadline_never_leaves_an_empty_reply(engine, fake_llm):
    service, _ = engine(0.8)
    for _ in range(2):  # L0 streams, then stalls; so does its forced answer in the last quarter of the time
        fake_llm.push(Reply(text="子曰：学而时习之，不亦说乎", chunk=2, chunk_delay=5.0))
    events = await collect(service, incoming("学而时习之"))
    assert any(isinstance(e, TextDelta) for e in events)
    final = final_of(events)
    assert isinstance(final, FinalReply) and final.level == 2 and final.text.strip()
    assert streamed_text(events) == ""


def _never_called():
    class NeverLLM:
        def stream(self, messages):
            raise AssertionError("no model call expected")

    return NeverLLM()


def _request(question: str, deadline: float | None = None) -> LadderRequest:
    skill = SkillRegistry().get(None)
    ctx = ToolContext(person_id=1, platform="console", chat_id="c1", is_group=False, trace_id="t1")
    return LadderRequest([{"role": "user", "content": question}], skill, question, ctx, deadline)
