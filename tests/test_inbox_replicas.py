"""The issue's crash: two webhook replicas on PostgreSQL + Redis, every update sent to replica A,
A answers 200 for all of them and is killed (SIGKILL) right after; the load balancer then sends to
B. Every person is answered, once, by B (from the inbox): nobody's message vanishes."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_db import postgres_url, redis_prefix  # noqa: F401
from tests.helpers_replicas import Replica, release_index, replica_env, stop_all

pytestmark = pytest.mark.processes

ANSWER = "学而时习之，不亦说乎？"


@pytest.mark.timeout(400)
async def test_kill_9_right_after_acknowledging_twenty_updates_loses_nobody(
    tmp_path, tg, fake_llm, postgres_url, redis_prefix
):
    redis_url, prefix = redis_prefix
    home = tmp_path / "home"
    home.mkdir()
    env = replica_env(home, postgres_url, redis_url, prefix, tg.base_url, fake_llm.base_url)
    fake_llm.set_default(lambda body: ANSWER)
    await release_index(env)
    replicas: list[Replica] = []
    people = list(range(201, 221))
    try:
        async with aiohttp.ClientSession() as session:
            for i in range(2):
                replicas.append(await Replica.started(env, tmp_path / f"replica{i}.log", session))
            a, b = replicas
            updates = [tg.private_text(chat, f"第{chat}问：何为仁？") for chat in people]
            statuses = await asyncio.gather(*(a.deliver(session, u) for u in updates))
            assert statuses == [200] * len(people)  # Telegram counts every one as received
            await asyncio.sleep(0.02)
            a.proc.kill()
            a.proc.wait(10)
            killed_at = time.monotonic()

            def answered() -> list[int]:
                return [chat for chat in people if any(ANSWER in m.text for m in tg.messages_in(chat))]

            try:
                await tg.wait_for(lambda: len(answered()) == len(people), timeout=90)
            except TimeoutError:
                raise AssertionError(f"answered {sorted(answered())}\n{b.tail(6000)}") from None
            took = time.monotonic() - killed_at
            await asyncio.sleep(3.0)  # a second answer to anyone would have come by now
            for chat in people:
                assert sum(ANSWER in m.text for m in tg.messages_in(chat)) == 1, (chat, tg.messages_in(chat))
            assert took < 60, took

            # a redelivery of an answered update (Telegram retrying a 200 it never saw) is not answered again
            before = len(tg.messages_in(people[0]))
            assert await b.deliver(session, updates[0]) == 200
            await asyncio.sleep(2.0)
            assert len(tg.messages_in(people[0])) == before
    finally:
        stop_all(replicas)
