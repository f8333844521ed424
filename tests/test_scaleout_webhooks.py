"""Two `fuzi run telegram` processes in webhook mode on one PostgreSQL schema and one Redis prefix,
updates delivered alternately to both (as a load balancer would), Telegram played by the fake Bot
API. The issue's multi-process test, without its Discord process."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest
import pytest_asyncio
from sqlalchemy import create_engine, text

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_db import postgres_url, redis_prefix  # noqa: F401
from tests.helpers_replicas import Replica, release_index, replica_env, stop_all

pytestmark = pytest.mark.processes


@pytest.mark.timeout(400)
async def test_two_webhook_replicas_share_memory_limits_and_update_ids(
    tmp_path, tg, fake_llm, postgres_url, redis_prefix
):
    redis_url, prefix = redis_prefix
    home = tmp_path / "home"
    home.mkdir()
    env = replica_env(home, postgres_url, redis_url, prefix, tg.base_url, fake_llm.base_url)
    fake_llm.set_default(lambda body: "学而时习之，不亦说乎？")
    await release_index(env)  # the release step: both replicas open this index
    replicas: list[Replica] = []
    try:
        async with aiohttp.ClientSession() as session:
            for i in range(2):
                replicas.append(await Replica.started(env, tmp_path / f"replica{i}.log", session))
                status, body = await replicas[-1].readyz(session)
                assert status == 200 and body["checks"]["redis"] == "ok"  # readiness asks Redis too
            a, b = replicas

            async def deliver(replica: Replica, update: dict) -> None:
                assert await replica.deliver(session, update) == 200

            async def ask(replica: Replica, chat: int, text: str) -> str:
                before = len(tg.messages_in(chat))
                update = tg.private_text(chat, text)
                await deliver(replica, update)
                await tg.wait_for(lambda: len(tg.messages_in(chat)) > before, timeout=30)
                await settled(chat)
                return tg.messages_in(chat)[-1].text

            async def settled(chat: int, quiet: float = 0.5) -> None:
                """Wait until the chat had no request for `quiet` seconds: the streamed reply is final
                and its replica has released the person (the next question is not "busy")."""
                seen = -1
                while seen != (seen := len(tg.chat_calls(chat))):
                    await asyncio.sleep(quiet)

            async def ask_until(replica: Replica, chat: int, text: str, *needles: str) -> str:
                """Deliver `text`; wait for a new message of the chat containing one of `needles`."""
                before = len(tg.messages_in(chat))
                await deliver(replica, tg.private_text(chat, text))

                def found() -> str | None:
                    return next(
                        (m.text for m in tg.messages_in(chat)[before:] if any(n in m.text for n in needles)), None
                    )

                await tg.wait_for(found, timeout=30)
                return found()

            # a fact remembered through replica A is listed through replica B
            assert "记下了" in await ask(a, 11, "/remember 我下周要考《论语》")
            assert "我下周要考《论语》" in await ask(b, 11, "/memories")

            # 16 messages of one person within a minute, alternating: exactly the 16th is refused
            replies = [await ask(a if i % 2 else b, 12, "何为仁？") for i in range(16)]
            assert ["子问得急了" in r for r in replies] == [False] * 15 + [True]

            # the same update delivered to both replicas is answered once
            update = tg.private_text(13, "巧言令色")
            await deliver(a, update)
            await deliver(b, update)
            await tg.wait_for(lambda: tg.messages_in(13), timeout=30)
            await asyncio.sleep(2.0)
            assert len(tg.messages_in(13)) == 1

            # kill -9 of the replica running a reply: the person may ask again within the lease time
            fake_llm.hang()  # the next model call never answers: replica A's reply stays in flight
            await deliver(a, tg.private_text(14, "何为孝？"))
            await tg.wait_for(lambda: tg.chat_calls(14), timeout=30)  # its placeholder shows
            busy, answer = "夫子正答你上一问", "学而时习之"
            assert busy in await ask_until(b, 14, "何为礼？", busy, answer)  # the lease is held by A
            a.proc.kill()
            a.proc.wait(10)
            killed_at = time.monotonic()
            while busy in (reply := await ask_until(b, 14, "何为礼？", busy, answer)):
                assert time.monotonic() - killed_at < 10, "the killed replica's lease did not expire"
                await asyncio.sleep(0.5)
            assert answer in reply
            # nothing stored is lost: the question A was answering is there, closed as "interrupted"
            # (with its reply) by replica B's repair sweep within about the lease (issue 18), and
            # answered anew by B from the inbox (issue 33)
            engine = create_engine(postgres_url)
            for _ in range(40):
                with engine.connect() as conn:
                    stored = conn.execute(text("SELECT status FROM message WHERE text = '何为孝？'")).scalars().all()
                if sorted(stored) == ["interrupted", "ok"]:
                    break
                await asyncio.sleep(0.5)
            engine.dispose()
            assert sorted(stored) == ["interrupted", "ok"]
    finally:
        stop_all(replicas)
