"""What one answered message costs in SQL statements and Redis commands, and its latency, with 1, 2
and 4 engine replicas (in one process, each with its own SQL pool, limiter, leases) on SQLite +
in-memory state vs PostgreSQL + Redis. Not a test; prints a Markdown table.

    FUZI_CORPUS_DIR=../shared/corpus python benchmarks/scaleout_costs.py [messages]

Answers come from L2 (no LLM: the retrieval-only answer over the corpus) so the figures are the
engine's own bookkeeping, not a model's. Redis round trips are the client-issued commands
(EVALSHA, SET, GET, EXISTS, PUBLISH …) from the server's `INFO commandstats`, not the commands the
scripts run inside Redis; other clients of the same server add noise. After the table, the SQL
statements of one replica per message, grouped by shape (literals left out), for each backend.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from sqlalchemy import create_engine, event, text  # noqa: E402

from bot.shared_state import redis_client  # noqa: E402
from bot.wiring import compose_service  # noqa: E402
from core.engine.admission import RunningReplies  # noqa: E402
from core.engine.commands import CommandRouter  # noqa: E402
from core.engine.running_redis import RedisRunningReplies  # noqa: E402
from core.events import FinalReply  # noqa: E402
from core.guards import FuziGuard, InMemoryRateLimiter, Quota  # noqa: E402
from core.guards.limits_redis import RedisRateLimiter  # noqa: E402
from core.memory import MemoryConfig, build_memory  # noqa: E402
from core.retrieval.embedder import HashingEmbedder  # noqa: E402
from core.skills import SkillRegistry  # noqa: E402
from core.storage import Storage, open_database  # noqa: E402
from core.types import Incoming  # noqa: E402
from tests.helpers_db import POSTGRES_URL, REDIS_URL, postgres_schema_url  # noqa: E402
from tests.helpers_engine import CorpusRetriever  # noqa: E402

QUOTA = Quota(per_minute=10_000, per_day=100_000, group_per_minute=None)
ROUND_TRIPS = (
    "evalsha",
    "eval",
    "set",
    "exists",
    "publish",
    "hget",
    "script",
)  # not GET/DEL: the lease scripts run those inside Redis
QUESTIONS = ["何为仁？", "巧言令色", "学而时习之", "君子不器", "父母在，不远游", "温故而知新"]


def shape(statement: str) -> str:
    """A statement without its parameters: `SELECT … FROM chat WHERE chat."key" = ?`."""
    text = re.sub(r"\s+", " ", statement).strip()
    text = re.sub(r"SELECT .*? FROM", "SELECT … FROM", text)
    text = re.sub(r"%\(\w+\)s", "?", text)
    text = re.sub(r"::(VARCHAR|INTEGER|BOOLEAN|TIMESTAMP WITH TIME ZONE)", "", text)  # PostgreSQL's casts
    return re.sub(r"\(\?(, \?)*\)", "(…)", text)[:100]


def round_trips(client: redis.Redis) -> int:
    stats = client.info("commandstats")
    return sum(stats.get(f"cmdstat_{name}", {}).get("calls", 0) for name in ROUND_TRIPS)


async def run(backend: str, replicas: int, messages: int, retriever) -> dict:
    tmp = Path(tempfile.mkdtemp())
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    prefix = f"fuzibench:{uuid.uuid4().hex[:8]}:"
    if backend == "postgres":
        admin = create_engine(POSTGRES_URL)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    services, engines, closers = [], [], []
    for _ in range(replicas):
        url = postgres_schema_url(schema) if backend == "postgres" else f"sqlite:///{tmp / 'fuzi.sqlite3'}"
        engine = open_database(url)
        engines.append(engine)
        if backend == "postgres":
            shared = redis_client(REDIS_URL)  # one client a replica, as bot/ builds it
            limiter, running = (
                RedisRateLimiter(QUOTA, shared, prefix=prefix),
                RedisRunningReplies(shared, prefix=prefix),
            )
            await running.start()
            closers += [running.aclose, shared.aclose]
        else:
            limiter, running = InMemoryRateLimiter(QUOTA), RunningReplies()
        memory = build_memory(engine, None, HashingEmbedder(), MemoryConfig(profile_enabled=False))
        services.append(
            compose_service(
                storage=Storage(engine),
                skills=SkillRegistry(),
                router=CommandRouter(),
                context=memory.context,
                guard=FuziGuard(limiter),
                retriever=retriever,
                running=running,
            )
        )
        closers.append(memory.aclose)
    shapes: Counter[str] = Counter()

    def count(_conn, _cursor, statement: str, *_rest) -> None:
        shapes[shape(statement)] += 1

    for engine in engines:
        event.listen(engine, "before_cursor_execute", count)
    client = redis.Redis.from_url(REDIS_URL)
    redis_before = round_trips(client)
    latencies: list[float] = []

    async def one(i: int) -> None:
        service = services[i % replicas]
        incoming = Incoming(
            platform="telegram", user_id=f"u{i % 50}", chat_id=f"c{i % 50}", text=QUESTIONS[i % len(QUESTIONS)]
        )
        started = time.perf_counter()
        events = [e async for e in service.handle(incoming)]
        assert any(isinstance(e, FinalReply) for e in events), events
        latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    for batch in range(0, messages, 50):  # 50 people at once, one message each per batch
        await asyncio.gather(*(one(i) for i in range(batch, min(batch + 50, messages))))
    wall = time.perf_counter() - started
    redis_cmds = round_trips(client) - redis_before
    for service in services:
        await service.aclose()
    for close in closers:
        await close()
    for engine in engines:
        engine.dispose()
    if backend == "postgres":
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)
    client.close()
    latencies.sort()
    return {
        "backend": backend,
        "replicas": replicas,
        "messages": messages,
        "msg_per_s": messages / wall,
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": latencies[int(0.95 * (len(latencies) - 1))] * 1000,
        "sql_per_msg": shapes.total() / messages,
        "shapes": {k: n / messages for k, n in shapes.most_common()},
        "redis_per_msg": (redis_cmds / messages) if backend == "postgres" else 0.0,
    }


async def main(messages: int) -> None:
    retriever = CorpusRetriever()
    rows = [await run(backend, n, messages, retriever) for backend in ("sqlite", "postgres") for n in (1, 2, 4)]
    print("| backend | replicas | messages | msg/s | p50 ms | p95 ms | SQL stmts/msg | Redis round trips/msg |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {'SQLite + memory' if r['backend'] == 'sqlite' else 'PostgreSQL + Redis'} | {r['replicas']} | "
            f"{r['messages']} | {r['msg_per_s']:.1f} | {r['p50_ms']:.0f} | {r['p95_ms']:.0f} | "
            f"{r['sql_per_msg']:.1f} | {r['redis_per_msg']:.1f} |"
        )
    for r in rows:
        if r["replicas"] == 1:
            print(f"\n{r['backend']}, 1 replica: SQL statements per message by shape\n")
            print("| per msg | statement |\n|---|---|")
            for statement, n in r["shapes"].items():
                print(f"| {n:.2f} | `{statement}` |")


if __name__ == "__main__":
    import logging

    import structlog  # noqa: E401

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
