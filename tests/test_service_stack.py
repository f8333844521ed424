"""The whole engine with every real part: SQLite storage, memory context, FuziGuard, the agent with
the real `search_classics` tool over the hybrid retriever (LanceDB + BM25, hashing embedder), the
openai SDK through the client and circuit breaker, against the fake OpenAI server.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.wiring import compose_service
from core.agent import Agent
from core.engine.commands import CommandRouter
from core.guards import FuziGuard, InMemoryRateLimiter, Quota
from core.llm.breaker import CircuitBreakerLLM
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.memory import MemoryConfig, build_memory, register_memory
from core.retrieval.documents import load_corpus
from core.retrieval.embedder import HashingEmbedder
from core.retrieval.indexer import build_index
from core.retrieval.retriever import HybridRetriever
from core.retrieval.store import PassageStore
from core.skills import SkillRegistry
from core.storage import Storage, create_engine_and_tables
from core.tools.classics import search_classics_tool
from core.tools.toolset import Toolset
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_engine import collect, final_of, incoming, notices


@pytest.fixture(scope="module")
def retriever(tmp_path_factory, corpus_dir):
    """Index the corpus once per module; the started retriever holds no event-loop state."""
    path = tmp_path_factory.mktemp("lancedb")
    build_index(PassageStore(path), HashingEmbedder(), load_corpus(corpus_dir))
    retriever = HybridRetriever(PassageStore(path), HashingEmbedder())
    asyncio.run(retriever.start())
    return retriever


async def no_sleep(_seconds: float) -> None:
    return None


@pytest.fixture
async def stack(tmp_path, fake_llm, retriever):
    client = OpenAIChatClient(
        base_url=fake_llm.base_url,
        api_key="sk-test",
        model="fake-model",
        timeout_s=5,
        retry=RetryPolicy(attempts=2),
        sleep=no_sleep,
    )
    llm = CircuitBreakerLLM(client, failures=2, reset_s=60)
    engine = create_engine_and_tables(f"sqlite:///{tmp_path / 'fuzi.sqlite3'}")
    memory = build_memory(engine, llm, HashingEmbedder(), MemoryConfig(profile_enabled=False))
    router, tools = CommandRouter(), Toolset([search_classics_tool(retriever)])
    service = compose_service(
        storage=Storage(engine),
        skills=SkillRegistry(),
        router=router,
        context=memory.context,
        guard=FuziGuard(InMemoryRateLimiter(Quota())),
        agent=Agent(llm, tools),
        llm=llm,
        retriever=retriever,
    )
    register_memory(memory, router=router, toolset=tools)
    yield service
    await service.aclose()
    await memory.aclose()
    await client.aclose()


async def test_cited_answer_through_every_real_part(stack, fake_llm):
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉", "k": 3})])
    fake_llm.stream_text("子曰：“管仲之器小哉！”[1] 器小，言其格局不足以成王道[9]。", chunk=6)
    events = await collect(stack, incoming("夫子如何评价管仲？"))
    final = final_of(events)
    assert final.level == 0 and [c.id for c in final.citations] == ["lunyu:3.22"]
    assert "[9]" not in final.text
    request = fake_llm.requests[1]
    assert "《论语·八佾》" in request["messages"][-1]["content"]  # the tool result the model saw
    assert "<user_message>" in str(request["messages"])  # memory wrapped the user's words as data


async def test_memory_commands_share_the_router(stack):
    [help_notice] = notices(await collect(stack, incoming("", command="help")))
    names = [name for name, _, _ in stack.commands()]
    assert names[:4] == ["start", "help", "skill", "cancel"] and len(names) > 4
    assert all(f"/{name}" in help_notice.text for name in names)


async def test_endpoint_down_answers_from_the_real_index(stack, fake_llm):
    fake_llm.strict = True  # every request fails with 500
    events = await collect(stack, incoming("巧言令色，鲜矣仁"))
    final = final_of(events)
    assert final.level == 2
    assert "lunyu:1.3" in [c.id for c in final.citations]
    assert final.text.startswith("今日夫子不能细细论说")
    second = final_of(await collect(stack, incoming("学而时习之")))
    assert second.level == 2 and second.citations[0].id == "lunyu:1.1"
    assert len(fake_llm.requests) == 4  # 2 attempts × (L0, L1) for the first message; the circuit then opened


async def test_two_people_at_once(stack, fake_llm):
    fake_llm.set_default(lambda body: "各有所长。")
    finals = await asyncio.gather(
        collect(stack, incoming("问一", user="yan")), collect(stack, incoming("问二", user="zeng", chat="c2"))
    )
    assert [final_of(events).text for events in finals] == ["各有所长。", "各有所长。"]
