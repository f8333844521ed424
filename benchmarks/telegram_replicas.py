"""Flood benchmark with N Telegram replicas (not a test): 100 chats at once, spread over 1, 2 or 4
bot applications as a load balancer would spread webhook updates, against the flood-limited fake
Bot API (429 past ~1/s per chat, 20/min per group, 30/s overall). Each replica has its own PTB
application, bot-wide limiter and per-chat budgets; with --shared-pace their bot-wide limiters take
slots on one Redis schedule and their per-chat budgets are claimed in Redis too (FUZI_TEST_REDIS_URL),
as `fuzi run telegram` does with FUZI_REDIS_URL.
The replicas run in one process (one event loop): this measures pacing, not CPU.

    FUZI_CORPUS_DIR=../shared/corpus python -m benchmarks.telegram_replicas [--replicas 1 2 4] [--shared-pace]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import uuid

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


async def run(args: argparse.Namespace, replicas: int, shared: bool) -> dict:
    engine = ScriptedEngine()
    expected: dict[int, str] = {}
    prefix = f"fuzibench:{uuid.uuid4().hex[:8]}:"
    async with FakeTelegram(limits=FloodLimits(), latency=args.latency_ms / 1000) as tg:
        ids = chat_ids(args.chats, args.groups)
        for chat in ids:
            pieces, final = answer_for(chat, args.tokens)
            expected[chat] = compose(final)
            engine.on_text(f"问{chat}", *script(pieces, final, args.token_ms / 1000))
        settings = TelegramSettings(
            _env_file=None,
            bot_token=TOKEN,
            api_base_url=tg.base_url,
            edit_interval_private_s=1.0,
            edit_interval_group_s=3.0,
            poll_timeout_s=1,
        )
        conns = [redis_client(REDIS_URL) if shared else None for _ in range(replicas)]  # one a replica
        paces = [RedisPace(c, f"{prefix}pace:telegram", MAX_REQUESTS_PER_S) if c else None for c in conns]
        gates = [RedisChatGate(c, f"{prefix}budget:telegram:") if c else None for c in conns]
        apps = [
            build_application(settings, engine, pace=pace, budgets=BudgetRegistry(gate=gate))
            for pace, gate in zip(paces, gates, strict=True)
        ]
        for app in apps:
            await app.initialize()
            await app.start()
        try:
            await asyncio.sleep(0.2)
            import time

            start = time.monotonic()
            for n, chat in enumerate(ids):  # the load balancer: chat n to replica n mod N
                if chat < 0:
                    update = tg.group_text(chat, f"@{BOT_USERNAME} 问{chat}", user_id=abs(chat))
                else:
                    update = tg.private_text(chat, f"问{chat}")
                app = apps[n % replicas]
                await app.update_queue.put(Update.de_json(update, app.bot))

            def done() -> bool:
                return all("".join(m.text for m in tg.messages_in(c)) == expected[c] for c in ids)

            try:
                await tg.wait_for(done, timeout=args.deadline)
            except TimeoutError:
                pass
            elapsed = time.monotonic() - start
        finally:
            for app in apps:
                await app.stop()
                await app.shutdown()
            for conn in conns:
                if conn is not None:
                    await conn.aclose()
        args.limiter = "priority"
        result = summarize(tg, ids, expected, start, elapsed, args)
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=prefix + "*"))
    if keys:
        client.delete(*keys)
    client.close()
    return {"replicas": replicas, "shared_pace": shared} | result


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
    args = parser.parse_args()
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
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
