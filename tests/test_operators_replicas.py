"""Two `fuzi run telegram` webhook processes on one PostgreSQL schema and one Redis prefix (each with
its own settings cache): a chat's model changed through one replica is used by the other, and no
other chat changes. The model each request named is seen by the fake OpenAI server."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_db import postgres_url, redis_prefix  # noqa: F401
from tests.helpers_replicas import Replica, release_index, replica_env, stop_all

pytestmark = pytest.mark.processes

X, Y = 21, 22  # two private chats


@pytest.mark.timeout(400)
async def test_one_chat_s_model_changes_across_replicas_and_no_other(
    tmp_path, tg, fake_llm, postgres_url, redis_prefix
):
    redis_url, prefix = redis_prefix
    home = tmp_path / "home"
    home.mkdir()
    env = replica_env(home, postgres_url, redis_url, prefix, tg.base_url, fake_llm.base_url)
    env |= {"FUZI_LLM_MODEL": "base-model", "FUZI_LLM_MODELS": "big-model,small-model"}
    fake_llm.set_default(lambda body: f"model {body['model']}")
    await release_index(env)
    replicas: list[Replica] = []
    try:
        async with aiohttp.ClientSession() as session:
            for i in range(2):
                replicas.append(await Replica.started(env, tmp_path / f"replica{i}.log", session))
            a, b = replicas

            async def ask(replica: Replica, chat: int, text: str, needle: str, timeout: float = 30) -> str:
                before = len(tg.messages_in(chat))
                assert await replica.deliver(session, tg.private_text(chat, text)) == 200
                found = lambda: next((m.text for m in tg.messages_in(chat)[before:] if needle in m.text), None)  # noqa: E731
                await tg.wait_for(found, timeout=timeout)
                await settled(chat)
                return found() or ""

            async def settled(chat: int, quiet: float = 0.5) -> None:
                """Until the chat had no request for `quiet` seconds: the reply is final and its
                replica released the person (else the next question is rightly "busy")."""
                seen = -1
                while seen != (seen := len(tg.chat_calls(chat))):
                    await asyncio.sleep(quiet)

            assert "model base-model" in await ask(b, X, "何为学？", "model ")  # B has read X's settings
            assert "big-model" in await ask(a, X, "/settings model big-model", "big-model")
            changed_at, seen = time.monotonic(), ""
            while "big-model" not in seen:  # B's cache of X is at most SETTINGS_CACHE_S (5 s) old
                assert time.monotonic() - changed_at < 15, "replica B never used chat X's model"
                seen = await ask(b, X, "何为学？", "model ")
            assert "model base-model" in await ask(a, Y, "何为仁？", "model ")
            assert "model base-model" in await ask(b, Y, "何为仁？", "model ")
            assert "model big-model" in await ask(a, X, "何为礼？", "model ")
    finally:
        stop_all(replicas)
    asked = [(r["model"], r["messages"][-1]["content"]) for r in fake_llm.requests if r.get("stream")]
    assert {m for m, q in asked if "何为仁" in q} == {"base-model"}
    assert asked[-1][0] == "big-model"
