"""An update delivered twice is handled once: the `Seen` contract (in process and Redis) and the
Telegram adapter dropping a repeated update_id."""

from __future__ import annotations

import asyncio
import socket

import pytest
import pytest_asyncio

from core.events import FinalReply
from core.inbox.seen import InMemorySeen
from core.inbox.seen_redis import RedisSeen
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_db import redis_client, redis_prefix  # noqa: F401
from tests.helpers_process import free_port
from tests.helpers_telegram import running_bot


@pytest.fixture(params=["memory", "redis"])
def make_seen(request, redis_client):
    made: list = []

    def factory():
        if request.param == "memory":
            if not made:
                made.append(InMemorySeen())
            return made[0]
        url, prefix = request.getfixturevalue("redis_prefix")
        return RedisSeen(redis_client(url), prefix=prefix)  # one client a replica

    return factory


async def test_first_exactly_once_per_id_across_replicas(make_seen):
    a, b = make_seen(), make_seen()
    results = await asyncio.gather(*((a if i % 2 else b).first("telegram:update:7") for i in range(10)))
    assert sum(results) == 1
    assert await a.first("telegram:update:8") is True


async def test_in_memory_seen_forgets_the_oldest_beyond_its_size():
    seen = InMemorySeen(max_keys=2)
    assert [await seen.first(k) for k in ("a", "b", "c")] == [True, True, True]
    assert await seen.first("c") is False and await seen.first("a") is True  # "a" was forgotten


async def test_redis_down_counts_every_id_as_new(redis_client):
    port = free_port()
    seen = RedisSeen(redis_client(f"redis://127.0.0.1:{port}/0"))
    assert await seen.first("x") is True and await seen.first("x") is True


async def test_telegram_answers_a_redelivered_update_once(tg, redis_prefix, redis_client):
    url, prefix = redis_prefix
    engine = ScriptedEngine(default=[FinalReply("答")])
    seen = RedisSeen(redis_client(url), prefix=prefix)
    async with running_bot(tg, engine, seen=seen):
        update = tg.private_text(5, "何为仁？")
        tg.redeliver(update)
        await tg.wait_for(lambda: tg.messages_in(5))
        tg.private_text(5, "何为礼？")  # a new update_id is answered as usual
        await tg.wait_for(lambda: len(engine.received) >= 2)
        await asyncio.sleep(0.5)
    assert [i.text for i in engine.received] == ["何为仁？", "何为礼？"]
