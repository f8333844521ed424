"""Two `fuzi run telegram` processes in webhook mode on one PostgreSQL schema and one Redis prefix,
updates delivered alternately to both (as a load balancer would), Telegram played by the fake Bot
API. The issue's multi-process test, without its Discord process."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio
from sqlalchemy import create_engine, text

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.telegram_api import TOKEN, FakeTelegram
from tests.helpers_corpus import corpus_dir
from tests.helpers_db import postgres_url, redis_prefix  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
SECRET = "webhook-secret-123"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest_asyncio.fixture
async def tg():
    async with FakeTelegram() as fake:
        yield fake


class Replica:
    def __init__(self, env: dict, log: Path) -> None:
        self.port, self.health = free_port(), free_port()
        env = env | {"TELEGRAM_WEBHOOK_PORT": str(self.port), "FUZI_METRICS_PORT": str(self.health)}
        self.log = open(log, "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "run", "telegram"],
            cwd=env["FUZI_HOME"],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    async def ready(self, session: aiohttp.ClientSession, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, Path(self.log.name).read_text()[-3000:]
            try:
                async with session.get(f"http://127.0.0.1:{self.health}/readyz") as r:
                    if r.status == 200:
                        assert (await r.json())["checks"]["redis"] == "ok"  # readiness asks Redis too
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.5)
        raise AssertionError("replica not ready: " + Path(self.log.name).read_text()[-3000:])

    async def deliver(self, session: aiohttp.ClientSession, update: dict) -> None:
        async with session.post(
            f"http://127.0.0.1:{self.port}/telegram", json=update, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}
        ) as r:
            assert r.status == 200, await r.text()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


@pytest.mark.timeout(400)
async def test_two_webhook_replicas_share_memory_limits_and_update_ids(
    tmp_path, tg, fake_llm, postgres_url, redis_prefix
):
    redis_url, prefix = redis_prefix
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FUZI_", "TELEGRAM_", "DISCORD_"))}
    env |= dict(
        PYTHONPATH=str(ROOT),
        FUZI_HOME=str(home),
        FUZI_CORPUS_DIR=str(corpus_dir()),
        FUZI_RETRIEVAL_EMBEDDER="hashing",
        FUZI_MEMORY_PROFILE_ENABLED="false",
        HF_HUB_OFFLINE="1",
        FUZI_DATABASE_URL=postgres_url,
        FUZI_REDIS_URL=redis_url,
        FUZI_REDIS_PREFIX=prefix,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=tg.base_url,
        TELEGRAM_MODE="webhook",
        TELEGRAM_WEBHOOK_URL="https://bot.example.invalid/telegram",
        TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_EDIT_INTERVAL_PRIVATE_S="0.1",
        FUZI_LLM_BASE_URL=fake_llm.base_url,
        FUZI_LLM_API_KEY="sk-test",
        FUZI_REDIS_REPLY_LEASE_S="2",
    )
    fake_llm.set_default(lambda body: "学而时习之，不亦说乎？")
    release = subprocess.run(
        [sys.executable, "-m", "bot", "index"], cwd=home, env=env, capture_output=True, text=True, timeout=300
    )  # the release step: both replicas open this index
    assert release.returncode == 0, release.stderr[-3000:]
    replicas = [Replica(env, tmp_path / f"replica{i}.log") for i in range(2)]
    try:
        async with aiohttp.ClientSession() as session:
            for r in replicas:
                await r.ready(session)
            a, b = replicas

            async def ask(replica: Replica, chat: int, text: str) -> str:
                before = len(tg.messages_in(chat))
                update = tg.private_text(chat, text)
                await replica.deliver(session, update)
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
                await replica.deliver(session, tg.private_text(chat, text))

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
            await a.deliver(session, update)
            await b.deliver(session, update)
            await tg.wait_for(lambda: tg.messages_in(13), timeout=30)
            await asyncio.sleep(2.0)
            assert len(tg.messages_in(13)) == 1

            # kill -9 of the replica running a reply: the person may ask again within the lease time
            fake_llm.hang()  # the next model call never answers: replica A's reply stays in flight
            await a.deliver(session, tg.private_text(14, "何为孝？"))
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
            # (with its reply) by replica B's repair sweep within about the lease (issue 18)
            engine = create_engine(postgres_url)
            for _ in range(40):
                with engine.connect() as conn:
                    stored = conn.execute(text("SELECT status FROM message WHERE text = '何为孝？'")).scalars().all()
                if stored == ["interrupted"]:
                    break
                await asyncio.sleep(0.5)
            engine.dispose()
            assert stored == ["interrupted"]
    finally:
        for r in replicas:
            r.stop()
