"""Two replicas of the engine (each its own SQL pool, limiter and lease owner) on one PostgreSQL
schema and one Redis prefix, as two processes behind a load balancer would run."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import pytest

from bot.wiring import compose_service
from core.engine.commands import CommandRouter
from core.engine.running_redis import RedisRunningReplies
from core.events import FinalReply, Notice
from core.guards import FuziGuard, Quota
from core.guards.limits_redis import RedisRateLimiter
from core.memory import MemoryConfig, build_memory, register_memory
from core.retrieval.embedder import HashingEmbedder
from core.skills import SkillRegistry
from core.storage import Storage, open_database
from core.types import Incoming
from tests.helpers_db import postgres_url, redis_client, redis_prefix  # noqa: F401
from tests.helpers_engine import CorpusRetriever, collect

QUOTA = Quota(per_minute=15, per_day=150, group_per_minute=None)


class GatedRetriever:
    """The corpus retriever, made to wait while `gate` is clear (a reply held open); `entered` tells it waits."""

    def __init__(self) -> None:
        self._inner = CorpusRetriever()
        self.gate, self.entered = asyncio.Event(), asyncio.Event()
        self.gate.set()

    async def search(self, query: str, *, k: int = 5, corpus: str = "all"):
        self.entered.set()
        await self.gate.wait()
        return await self._inner.search(query, k=k, corpus=corpus)


@pytest.fixture
def corpus_retriever():
    return GatedRetriever()


@pytest.fixture
async def replicas(postgres_url, redis_prefix, redis_client, corpus_retriever):
    url, prefix = redis_prefix
    async with AsyncExitStack() as stack:
        built = []
        for _ in range(2):
            engine = open_database(postgres_url)
            stack.callback(engine.dispose)
            redis = redis_client(url)  # one client a replica, as bot/shared_state.open_redis builds it
            limiter = RedisRateLimiter(QUOTA, redis, prefix=prefix)
            running = RedisRunningReplies(redis, prefix=prefix, lease_s=5)
            await running.start()
            stack.push_async_callback(running.aclose)
            memory = build_memory(engine, None, HashingEmbedder(), MemoryConfig(profile_enabled=False))
            router = CommandRouter()
            service = compose_service(
                storage=Storage(engine),
                skills=SkillRegistry(),
                router=router,
                context=memory.context,
                guard=FuziGuard(limiter),
                retriever=corpus_retriever,
                running=running,
            )
            register_memory(memory, router=router)
            stack.push_async_callback(memory.aclose)
            stack.push_async_callback(service.aclose)
            built.append(service)
        yield built, corpus_retriever


def message(text: str, *, platform: str = "telegram", user: str = "42", command: str | None = None) -> Incoming:
    return Incoming(platform=platform, user_id=user, chat_id=f"dm-{user}", text=text, user_name=user, command=command)


def command(name: str, args: str = "", *, platform: str = "telegram", user: str = "42") -> Incoming:
    return message(args, platform=platform, user=user, command=name)


def only_notice(events) -> Notice:
    found = [e for e in events if isinstance(e, Notice)]
    assert len(found) == 1, events
    return found[0]


async def test_memory_and_links_are_shared_between_replicas(replicas):
    (a, b), _ = replicas
    said = only_notice(await collect(a, command("remember", "我下周要考《论语》")))
    assert "记下了" in said.text
    listed = only_notice(await collect(b, command("memories")))
    assert listed.extra["count"] == 1 and "我下周要考《论语》" in listed.text
    code = only_notice(await collect(a, command("link"))).extra["code"]
    linked = only_notice(await collect(b, command("link", code, platform="discord", user="d9")))
    assert linked.extra["status"] == "linked"
    on_discord = only_notice(await collect(a, command("memories", platform="discord", user="d9")))
    assert "我下周要考《论语》" in on_discord.text


async def test_sixteen_messages_over_both_replicas_refuse_exactly_the_sixteenth(replicas):
    (a, b), _ = replicas
    outcomes = []
    for i in range(16):
        events = await collect(a if i % 2 else b, message("何为仁？", user="zilu"))
        outcomes.append("final" if any(isinstance(e, FinalReply) for e in events) else only_notice(events).reason)
    assert outcomes == ["final"] * 15 + ["rate_limited"]


async def test_one_reply_in_flight_across_replicas_and_cancel_from_the_other(replicas):
    (a, b), retriever = replicas
    retriever.gate.clear()  # replica A's reply waits in retrieval until /cancel arrives through replica B
    first = asyncio.create_task(collect(a, message("何为孝？", user="yan")))
    await asyncio.wait_for(retriever.entered.wait(), 10)
    busy = await collect(b, message("何为礼？", user="yan"))
    assert only_notice(busy).reason == "busy"
    cancelled = only_notice(await collect(b, command("cancel", user="yan")))
    assert cancelled.extra == {"cancelled": True}
    await asyncio.wait_for(first, 10)
    retriever.gate.set()
    after = await collect(b, message("何为礼？", user="yan"))
    assert any(isinstance(e, FinalReply) for e in after), after
