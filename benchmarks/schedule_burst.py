"""Burst benchmark for scheduled posts (not a test): N chats whose daily passage is due at one minute.

The real scheduler (core/schedule) claims every post in a database and hands it to the real
TelegramPoster over a real PTB application, against the fake Bot API (tests/fakes/telegram_api.py)
enforcing Telegram's published limits with 429s (about 1 message per second per chat, 20 per minute
per group, 30 per second overall). Optionally the explanations come from a fake OpenAI endpoint with a
set latency (behind the same bulkhead as production), and several replicas (each its own PTB
application, poster and scheduler, all on one database; with --redis-url on one shared send schedule)
scan the same due minute. Prints: posts sent, duplicates, 429s, time from the due minute to the first
and the last post, peak requests in any second, load average.

    python -m benchmarks.schedule_burst [--chats 500] [--groups 150] [--replicas 1] [--llm-ms 0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import tempfile
import time
from contextlib import AsyncExitStack
from datetime import time as dtime
from pathlib import Path

from adapters.common.pace import RedisPace
from adapters.telegram.app import scheduled_poster
from bot.shared_state import redis_client
from core.llm.bulkhead import BulkheadLLM
from core.schedule.passage import DailyPassage
from core.schedule.ports import ChatSchedule, Posters
from core.schedule.scheduler import Scheduler
from core.schedule.store import ClaimRepo, RotationRepo
from core.skills import SkillRegistry
from core.storage import open_database
from tests.fakes.engine import ScriptedEngine
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.telegram_api import FakeTelegram, FloodLimits
from tests.helpers_schedule import DictSettings, FakeClock, tiny_passages, utc
from tests.helpers_telegram import running_bot

DUE = utc(2026, 12, 2, 0, 0)  # 08:00 Asia/Shanghai


def chats(n: int, groups: int) -> list[ChatSchedule]:
    ids = [-(100000 + i) if i < groups else 5000 + i for i in range(n)]
    return [ChatSchedule(f"telegram:{i}", daily_at=dtime(8, 0), zone="Asia/Shanghai", is_group=i < 0) for i in ids]


async def llm_for(stack: AsyncExitStack, latency_ms: float, concurrency: int):
    if latency_ms <= 0:
        return None
    from core.llm.client import OpenAIChatClient

    fake = await FakeOpenAI().start()
    stack.push_async_callback(fake.stop)
    fake.set_default(lambda body: _slow_reply(latency_ms))
    client = OpenAIChatClient(base_url=fake.base_url, api_key="k", model="fake", timeout_s=30)
    stack.push_async_callback(client.aclose)
    return BulkheadLLM(client, max_concurrent=concurrency, max_wait_s=60)


def _slow_reply(latency_ms: float):
    from tests.fakes.openai_server import Reply

    return Reply(text="学而时习之，是说学了要时时温习实践；今人读书，亦当如此。", delay=latency_ms / 1000)


async def run(args: argparse.Namespace) -> dict:
    schedule = chats(args.chats, args.groups)
    settings = DictSettings(*schedule)
    async with AsyncExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        sql = open_database(args.database_url or f"sqlite:///{folder / 'fuzi.sqlite3'}")
        stack.callback(sql.dispose)
        llm = await llm_for(stack, args.llm_ms, args.llm_concurrency)
        tg = await stack.enter_async_context(FakeTelegram(limits=FloodLimits(), latency=args.latency_ms / 1000))
        clock = FakeClock(DUE)
        schedulers = []
        for _ in range(args.replicas):
            pace = None
            if args.redis_url:
                client = redis_client(args.redis_url)
                stack.push_async_callback(client.aclose)
                pace = RedisPace(client, f"bench:{os.getpid()}:pace", 28.0)
            app = await stack.enter_async_context(running_bot(tg, ScriptedEngine(), edit_interval_group_s=3.0))
            if pace is not None:
                app.bot.rate_limiter.shared = pace
            posters = Posters()
            posters.register("telegram", scheduled_poster(app, app.bot_data["handlers"].settings))
            daily = DailyPassage(tiny_passages(), RotationRepo(sql), SkillRegistry(), llm)
            schedulers.append(Scheduler(settings, ClaimRepo(sql), daily, posters, now=clock.now))
        start = time.monotonic()
        started = await asyncio.gather(*(s.scan() for s in schedulers))
        await asyncio.gather(*(t for tasks in started for t in tasks))
        elapsed = time.monotonic() - start
        return summarize(tg, schedule, start, elapsed, args)


def summarize(tg: FakeTelegram, schedule: list[ChatSchedule], start: float, elapsed: float, args) -> dict:
    ok = [c for c in tg.calls if c.method == "sendMessage" and c.status == 200]
    per_chat: dict[int, int] = {}
    for c in ok:
        chat = c.chat_id or 0
        per_chat[chat] = per_chat.get(chat, 0) + 1
    per_second: dict[int, int] = {}
    for c in ok:
        per_second[int(c.t - start)] = per_second.get(int(c.t - start), 0) + 1
    return {
        "chats": len(schedule),
        "groups": args.groups,
        "replicas": args.replicas,
        "shared_pace": bool(args.redis_url),
        "llm_ms": args.llm_ms,
        "posts_sent": sum(1 for v in per_chat.values() if v >= 1),
        "duplicates": sum(v - 1 for v in per_chat.values() if v > 1),
        "http_429_received": tg.retry_after_429s,
        "first_post_s": round(min(c.t for c in ok) - start, 2) if ok else None,
        "last_post_s": round(max(c.t for c in ok) - start, 2) if ok else None,
        "peak_posts_per_s": max(per_second.values(), default=0),
        "elapsed_s": round(elapsed, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=500)
    parser.add_argument("--groups", type=int, default=150, help="how many of the chats are groups")
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--latency-ms", type=float, default=30.0, help="fake Bot API latency per request")
    parser.add_argument("--llm-ms", type=float, default=0.0, help="fake LLM latency per explanation; 0: no LLM")
    parser.add_argument("--llm-concurrency", type=int, default=16, help="bulkhead: LLM calls at once")
    parser.add_argument("--database-url", default=None, help="default: a SQLite file in a temp folder")
    parser.add_argument("--redis-url", default=None, help="share the bot-wide send schedule between replicas")
    args = parser.parse_args()
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    print(json.dumps(asyncio.run(run(args)), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
