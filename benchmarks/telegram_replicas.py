"""Flood benchmark with N Telegram replicas (not a test): 100 chats at once, spread over 1, 2 or 4
bot applications as a load balancer would spread webhook updates, against the flood-limited fake
Bot API (429 past ~1/s per chat, 20/min per group, 30/s overall). Each replica has its own PTB
application, bot-wide limiter and per-chat budgets; with --shared-pace their bot-wide limiters take
slots on one Redis schedule and their per-chat budgets are claimed in Redis too (FUZI_TEST_REDIS_URL),
as `fuzi run telegram` does with FUZI_REDIS_URL.
The replicas run in one process (one event loop): this measures pacing, not CPU; with --processes
each replica is a process of its own on `fuzi run`'s event loop (the fake Bot API stays in this one), as N `fuzi run telegram`.

    FUZI_CORPUS_DIR=../shared/corpus python -m benchmarks.telegram_replicas [--replicas 1 2 4] [--shared-pace] [--processes]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from asyncio.subprocess import PIPE

import redis
from telegram import Update

from adapters.common.budget import BudgetRegistry
from adapters.common.budget_redis import RedisChatGate
from adapters.common.pace import RedisPace
from adapters.common.render import compose
from adapters.telegram.app import build_application
from adapters.telegram.settings import MAX_REQUESTS_PER_S, TelegramSettings
from benchmarks.telegram_flood import answer_for, chat_ids, script, summarize
from bot.shared_state import redis_client
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import BOT_USERNAME, TOKEN, FakeTelegram, FloodLimits
from tests.helpers_db import REDIS_URL


def engine_for(chats: list[int], args: argparse.Namespace) -> tuple[ScriptedEngine, dict[int, str]]:
    engine, expected = ScriptedEngine(), {}
    for chat in chats:
        pieces, final = answer_for(chat, args.tokens)
        expected[chat] = compose(final)
        engine.on_text(f"问{chat}", *script(pieces, final, args.token_ms / 1000))
    return engine, expected


def replica(base_url: str, engine: ScriptedEngine, prefix: str, shared: bool):
    """One replica's PTB application (and its Redis client, or None), as `fuzi run telegram` builds it."""
    settings = TelegramSettings(
        _env_file=None,
        bot_token=TOKEN,
        api_base_url=base_url,
        edit_interval_private_s=1.0,
        edit_interval_group_s=3.0,
        poll_timeout_s=1,
    )
    conn = redis_client(REDIS_URL) if shared else None  # one client a replica
    pace = RedisPace(conn, f"{prefix}pace:telegram", MAX_REQUESTS_PER_S) if conn else None
    gate = RedisChatGate(conn, f"{prefix}budget:telegram:") if conn else None
    return build_application(settings, engine, pace=pace, budgets=BudgetRegistry(gate=gate)), conn


def updates_for(tg: FakeTelegram, ids: list[int]) -> list[dict]:
    return [
        tg.group_text(chat, f"@{BOT_USERNAME} 问{chat}", user_id=abs(chat))
        if chat < 0
        else tg.private_text(chat, f"问{chat}")
        for chat in ids
    ]


async def run(args: argparse.Namespace, replicas: int, shared: bool) -> dict:
    prefix = f"fuzibench:{uuid.uuid4().hex[:8]}:"
    ids = chat_ids(args.chats, args.groups)
    engine, expected = engine_for(ids, args)
    async with FakeTelegram(limits=FloodLimits(), latency=args.latency_ms / 1000) as tg:
        updates = updates_for(tg, ids)

        def done() -> bool:
            return all("".join(m.text for m in tg.messages_in(c)) == expected[c] for c in ids)

        if args.processes:
            start, elapsed = await in_processes(args, tg, updates, replicas, shared, prefix, done)
        else:
            start, elapsed = await in_one_loop(args, tg, engine, updates, replicas, shared, prefix, done)
        args.limiter = "priority"
        result = summarize(tg, ids, expected, start, elapsed, args)
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=prefix + "*"))
    if keys:
        client.delete(*keys)
    client.close()
    return {"replicas": replicas, "shared_pace": shared} | result


async def in_one_loop(args, tg, engine, updates, replicas, shared, prefix, done) -> tuple[float, float]:
    built = [replica(tg.base_url, engine, prefix, shared) for _ in range(replicas)]
    apps = [app for app, _ in built]
    for app in apps:
        await app.initialize()
        await app.start()
    try:
        await asyncio.sleep(0.2)
        start = time.monotonic()
        for n, update in enumerate(updates):  # the load balancer: chat n to replica n mod N
            app = apps[n % replicas]
            await app.update_queue.put(Update.de_json(update, app.bot))
        await wait_done(tg, done, args.deadline)
        return start, time.monotonic() - start
    finally:
        for app in apps:
            await app.stop()
            await app.shutdown()
        for _, conn in built:
            if conn is not None:
                await conn.aclose()


async def in_processes(args, tg, updates, replicas, shared, prefix, done) -> tuple[float, float]:
    """Each replica a process: it says "ready", puts its updates on "go" and stops on EOF."""
    procs = []
    for r in range(replicas):
        mine = updates[r::replicas]  # the load balancer: chat n to replica n mod N
        child = json.dumps([tg.base_url, prefix, shared, args.tokens, args.token_ms, mine])
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.telegram_replicas", "--child", stdin=PIPE, stdout=PIPE
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(child.encode() + b"\n")
        procs.append(proc)
    for proc in procs:
        assert proc.stdout is not None
        await proc.stdout.readline()  # ready
    start = time.monotonic()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
    await wait_done(tg, done, args.deadline)
    elapsed = time.monotonic() - start
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
    return start, elapsed


async def wait_done(tg: FakeTelegram, done, deadline: float) -> None:
    try:
        await tg.wait_for(done, timeout=deadline)
    except TimeoutError:
        pass


async def child() -> None:
    """A replica process (--child): its chats' updates and settings come on stdin."""
    loop = asyncio.get_running_loop()
    line = await loop.run_in_executor(None, sys.stdin.readline)
    base_url, prefix, shared, tokens, token_ms, updates = json.loads(line)
    args = argparse.Namespace(tokens=tokens, token_ms=token_ms)
    chats = [u["message"]["chat"]["id"] for u in updates]
    app, conn = replica(base_url, engine_for(chats, args)[0], prefix, shared)
    await app.initialize()
    await app.start()
    print("ready", flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)  # go
    for update in updates:
        await app.update_queue.put(Update.de_json(update, app.bot))
    await loop.run_in_executor(None, sys.stdin.readline)  # EOF: the parent saw every final
    await app.stop()
    await app.shutdown()
    if conn is not None:
        await conn.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument(
        "--shared-pace", action="store_true", help="also run each replica count with the Redis schedule"
    )
    parser.add_argument("--only-shared", action="store_true", help="run only with the Redis schedule")
    parser.add_argument("--chats", type=int, default=100)
    parser.add_argument("--groups", type=int, default=30)
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--token-ms", type=float, default=25.0)
    parser.add_argument("--latency-ms", type=float, default=30.0)
    parser.add_argument("--deadline", type=float, default=180.0)
    parser.add_argument("--processes", action="store_true", help="each replica a process of its own")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    if args.child:
        from bot.event_loop import run as run_on_loop

        run_on_loop(child())  # on the loop `fuzi run telegram` runs on
        return
    modes = [True] if args.only_shared else [False, True] if args.shared_pace else [False]
    rows = [asyncio.run(run(args, n, shared)) for n in args.replicas for shared in modes]
    print(
        "| replicas | shared pace | finals exact | 429s (chat/group/overall) | first visible p50/p95 s | final p50/p95 s | busiest 1 s window |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['replicas']} | {'yes' if r['shared_pace'] else 'no'} | {r['finals_exact']}/{r['chats']} | "
            f"{r['http_429_received']} ({'/'.join(str(v) for v in r['http_429_by_limit'].values())}) | {r['first_visible_p50_s']}/{r['first_visible_p95_s']} | "
            f"{r['final_p50_s']}/{r['final_p95_s']} | {r['busiest_sliding_second']} |"
        )
    print(json.dumps(rows, ensure_ascii=False))


if __name__ == "__main__":
    main()
