"""Inline look-up latency on the real corpus and index, and the cost of a chat-settings read per message.

    FUZI_HOME=… FUZI_CORPUS_DIR=../shared/corpus fuzi index          # once: the real index
    FUZI_HOME=… FUZI_CORPUS_DIR=../shared/corpus python benchmarks/lookups.py [queries]

1. Look-ups: the engine's `PassageLookup` (per-person limits, script detection, the hybrid retriever
   over LanceDB + BM25, k=10) for queries a person types into inline mode: 2–6 character slices of
   real passages, some in Traditional, some half-remembered; after a warm-up. Then the same queries
   through the whole Telegram path: real PTB polling the fake Bot API on 127.0.0.1, from the inline
   update being queued to `answerInlineQuery` arriving at the fake.
2. Settings: `ChatSettingsRepo.get` per message, cached (the default 5 s) and uncached, on SQLite and
   on the PostgreSQL of tests/helpers_db.py (a schema of its own, dropped afterwards).
Not a test; prints Markdown tables.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from bot.retrieval_factory import build_retriever  # noqa: E402
from bot.settings import Settings  # noqa: E402
from core.engine.lookup import LOOKUP_LIMITS, PassageLookup  # noqa: E402
from core.language.script import ScriptConverter  # noqa: E402
from core.storage import Storage, open_database  # noqa: E402
from tests.helpers_db import POSTGRES_URL, postgres_schema_url  # noqa: E402

SEED = 19


def queries(n: int, corpus_dir: Path, scripts: ScriptConverter) -> list[str]:
    """`n` inline queries: slices of real passages (a third in Traditional, some with a typo'd char)."""
    rng = random.Random(SEED)
    texts = [p for chapter in json.loads((corpus_dir / "lunyu.json").read_text("utf-8")) for p in chapter["paragraphs"]]
    texts += ["".join(poem["content"]) for poem in json.loads((corpus_dir / "shijing.json").read_text("utf-8"))]
    out = []
    for i in range(n):
        text = rng.choice(texts)
        size = rng.randint(2, 6)
        start = rng.randrange(max(1, len(text) - size))
        q = text[start : start + size]
        if i % 3 == 0:
            q = scripts.traditional(q)
        if i % 7 == 0 and len(q) > 2:
            q = q[:-1] + "之"
        out.append(q)
    return out


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def bench_lookup(settings: Settings, qs: list[str]) -> list[float]:
    retriever = await build_retriever(settings)
    lookup = PassageLookup(cast(Any, retriever), ScriptConverter())
    for q in qs[:20]:  # warm-up: first embeddings, table pages, jieba
        await lookup.lookup(q, account="bench:warm", k=10)
    times = []
    for i, q in enumerate(qs):
        started = time.perf_counter()
        result = await lookup.lookup(q, account=f"bench:{i}", k=10)  # one person per query: no limit hit
        times.append((time.perf_counter() - started) * 1000)
        assert result.passages or result.hint
    return times


async def bench_telegram(settings: Settings, qs: list[str]) -> list[float]:
    from bot.wiring import compose_service
    from core.engine.commands import CommandRouter
    from core.guards import FuziGuard, InMemoryRateLimiter, Quota
    from core.skills import SkillRegistry
    from tests.fakes.telegram_api import FakeTelegram
    from tests.helpers_engine import WindowContext
    from tests.helpers_telegram import running_bot

    retriever = await build_retriever(settings)
    storage = Storage(open_database(f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"))
    service = compose_service(
        storage=storage,
        skills=SkillRegistry(),
        router=CommandRouter(),
        context=WindowContext(storage),
        guard=FuziGuard(InMemoryRateLimiter(Quota())),
        retriever=cast(Any, retriever),
    )
    times = []
    async with FakeTelegram() as tg, running_bot(tg, service):
        for i, q in enumerate(qs[:20] + qs):
            started = time.perf_counter()
            tg.inline(q, user_id=1000 + i)
            await tg.wait_for(partial(answered_more_than, tg, i), timeout=10)
            if i >= 20:
                times.append((time.perf_counter() - started) * 1000)
    return times


def answered_more_than(tg: Any, count: int) -> bool:
    return len(tg.inline_answers) > count


async def bench_settings(url: str, reads: int) -> tuple[float, float]:
    engine = open_database(url)
    try:
        storage = Storage(engine)
        await storage.settings.ensure("telegram:-1", "telegram", True)
        await storage.settings.change("telegram:-1", "script", "traditional", account="telegram:1")
        await storage.settings.get("telegram:-1")
        started = time.perf_counter()
        for _ in range(reads):
            await storage.settings.get("telegram:-1")
        cached = (time.perf_counter() - started) / reads * 1e6
        started = time.perf_counter()
        for _ in range(reads // 10):
            await storage.settings.fresh("telegram:-1")
        fresh = (time.perf_counter() - started) / (reads // 10) * 1e6
        return cached, fresh
    finally:
        engine.dispose()


async def main(n: int) -> None:
    settings = Settings()  # type: ignore[call-arg]  # every field has a default or comes from the environment
    scripts = ScriptConverter()
    qs = queries(n, settings.corpus_path, scripts)
    load = os.getloadavg()[0]
    core = await bench_lookup(settings, qs)
    wire = await bench_telegram(settings, qs)
    print(
        f"\nInline look-ups, {n} queries, k=10, limits {LOOKUP_LIMITS} (load average before: {load:.2f}, after: {os.getloadavg()[0]:.2f})\n"
    )
    print("| path | p50 ms | p95 ms | max ms |\n| --- | --- | --- | --- |")
    for name, values in (("PassageLookup (engine)", core), ("PTB ↔ fake Bot API, update → answerInlineQuery", wire)):
        print(f"| {name} | {statistics.median(values):.1f} | {pct(values, 95):.1f} | {max(values):.1f} |")
    print(
        "\nSettings read per message (µs per read)\n\n| database | cached get | uncached (SQL) |\n| --- | --- | --- |"
    )
    with tempfile.TemporaryDirectory() as tmp:
        cached, fresh = await bench_settings(f"sqlite:///{tmp}/s.sqlite3", 5000)
        print(f"| SQLite | {cached:.1f} | {fresh:.0f} |")
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        cached, fresh = await bench_settings(postgres_schema_url(schema), 5000)
        print(f"| PostgreSQL (127.0.0.1) | {cached:.1f} | {fresh:.0f} |")
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 300))
