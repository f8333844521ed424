"""Webhook acknowledgement latency with the inbox (not a test): how long Telegram waits for its 200
when every update is written to the inbox first, on SQLite and on PostgreSQL, against the in-memory
store (no durable write: what the webhook cost before the inbox).

A real PTB application in webhook mode (adapters/telegram/app.py, ScriptedEngine answering at once)
on 127.0.0.1; updates are POSTed one after another, then in bursts of 20 at once; each figure is the
client's time from sending the request to reading the 200.

    FUZI_CORPUS_DIR=../shared/corpus python -m benchmarks.inbox_webhook [--updates 400]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import aiohttp
import structlog
from sqlalchemy import create_engine, text

from adapters.telegram.app import build_application, start, stop
from adapters.telegram.settings import TelegramSettings
from core.inbox import Inbox, MemoryInboxStore
from core.storage import create_engine_and_tables
from core.storage.inbox import SqlInboxStore
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import TOKEN, FakeTelegram
from tests.helpers_db import POSTGRES_URL, postgres_schema_url
from tests.helpers_process import free_port

SECRET = "bench-secret"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)


async def _measure(store_name: str, store, n: int) -> dict:
    port = free_port()
    async with FakeTelegram() as tg:
        settings = TelegramSettings(
            bot_token=TOKEN,
            api_base_url=tg.base_url,
            mode="webhook",
            webhook_url="https://bench.invalid/telegram",
            webhook_listen="127.0.0.1",
            webhook_port=port,
            webhook_path="/telegram",
            webhook_secret=SECRET,
        )
        app = build_application(settings, ScriptedEngine(), inbox=Inbox(store))
        await start(app, settings)
        url, headers = f"http://127.0.0.1:{port}/telegram", {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        try:
            async with aiohttp.ClientSession() as session:

                async def post(update: dict) -> float:
                    began = time.perf_counter()
                    async with session.post(url, json=update, headers=headers) as r:
                        assert r.status == 200, r.status
                    return time.perf_counter() - began

                one_by_one = [await post(tg.private_text(1000 + i % 50, "何为仁？")) for i in range(n)]
                bursts: list[float] = []
                for _ in range(max(1, n // 20)):
                    batch = [tg.private_text(2000 + i, "何为礼？") for i in range(20)]
                    bursts += await asyncio.gather(*(post(u) for u in batch))
        finally:
            await stop(app)
    return {
        "store": store_name,
        "sequential_p50_ms": _pct(one_by_one, 0.5),
        "sequential_p95_ms": _pct(one_by_one, 0.95),
        "burst20_p50_ms": _pct(bursts, 0.5),
        "burst20_p95_ms": _pct(bursts, 0.95),
        "mean_ms": round(statistics.mean(one_by_one) * 1000, 2),
    }


async def main(args: argparse.Namespace) -> None:
    results = [await _measure("memory (no durable write)", MemoryInboxStore(), args.updates)]
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine_and_tables(f"sqlite:///{Path(tmp) / 'fuzi.sqlite3'}")
        results.append(await _measure("sqlite", SqlInboxStore(engine), args.updates))
        engine.dispose()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        engine = create_engine_and_tables(postgres_schema_url(schema))
        results.append(await _measure("postgresql", SqlInboxStore(engine), args.updates))
        engine.dispose()
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
    for row in results:
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=400)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    asyncio.run(main(parser.parse_args()))
