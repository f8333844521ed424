"""Shared helpers for the memory tests: a deterministic embedder, a scripted LLM router, a mini engine.

The mini engine does what core/engine/service.py does around memory for one turn: resolve the person,
store the user message, build the context, ask the (fake, over HTTP) model, store the reply, and
call ``after_reply``. Tests then assert on the requests the fake OpenAI server received.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.memory import MemoryConfig, build_memory
from core.ports import Turn
from core.storage import Storage, create_engine_and_tables
from core.types import Incoming
from tests.fakes.openai_server import Error

SYSTEM = "SYSTEM-RULES: 你是夫子。"
SUMMARY_MARK = "对话记录员"
PROFILE_MARK = "用户画像"


class HashEmbedder:
    """Deterministic bag-of-characters embedder implementing the retrieval Embedder protocol."""

    model_name = "test-hash-64"
    dim = 64

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for ch in text:
            if not ch.isspace():
                v[int(hashlib.md5(ch.encode()).hexdigest(), 16) % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    async def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)

    async def embed_passages(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


class Clock:
    """A controllable UTC clock."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class LLMScript:
    """Answers the fake server's requests by kind: summary, profile or chat.

    summaries / profiles: queued answers (str, or an Error step); when empty, defaults are used.
    """

    summaries: list = field(default_factory=list)
    profiles: list = field(default_factory=list)
    n_summary: int = 0

    def __call__(self, body: dict):
        system = body["messages"][0]["content"] if body.get("messages") else ""
        if SUMMARY_MARK in system:
            self.n_summary += 1
            return self.summaries.pop(0) if self.summaries else f"摘要{self.n_summary}"
        if PROFILE_MARK in system and "【已有画像】" in body["messages"][-1]["content"]:
            return self.profiles.pop(0) if self.profiles else "{}"
        return "子曰：善。"


def kind(body: dict) -> str:
    """ "summary", "profile" or "chat" for a recorded request body."""
    system = body["messages"][0]["content"]
    if SUMMARY_MARK in system:
        return "summary"
    if PROFILE_MARK in system and "【已有画像】" in body["messages"][-1]["content"]:
        return "profile"
    return "chat"


def requests_of(fake, which: str) -> list[dict]:
    return [b for b in fake.requests if kind(b) == which]


def all_text(messages: list[dict]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


class MiniEngine:
    """Storage + memory + LLM client over one SQLite file, wired like bot/wiring does."""

    def __init__(self, db: Path, fake, embedder=None, config: MemoryConfig | None = None, clock=None):
        self.engine = create_engine_and_tables(f"sqlite:///{db}")
        self.storage = Storage(self.engine)
        self.llm = OpenAIChatClient(base_url=fake.base_url, api_key="sk-test", model="m", retry=RetryPolicy(attempts=1))
        self.clock = clock or Clock()
        self.memory = build_memory(
            self.engine,
            self.llm,
            embedder or HashEmbedder(),
            config or MemoryConfig(window_rounds=2, summary_fold_rounds=0),
            clock=self.clock,
        )
        self.fake = fake

    async def turn(self, inc: Incoming) -> Turn:
        person = await self.storage.identities.resolve(inc.platform, inc.user_id, inc.user_name)
        return Turn(incoming=inc, person_id=person, skill="teaching")

    async def say(self, inc: Incoming) -> tuple[list[dict], str]:
        """One full exchange; returns (messages built for the model, reply text)."""
        turn = await self.turn(inc)
        await self.storage.messages.add(
            inc.chat_key,
            "user",
            inc.text,
            person_id=turn.person_id,
            account=inc.account,
            speaker=inc.user_name,
            trace_id=inc.trace_id,
        )
        messages = await self.memory.context.build(turn, SYSTEM)
        reply = (await self.llm.complete(messages)).text
        await self.storage.messages.add(
            inc.chat_key, "assistant", reply, person_id=turn.person_id, trace_id=inc.trace_id
        )
        await self.memory.context.after_reply(turn, reply)
        await self.memory.context.drain(10)
        return messages, reply

    async def command(self, inc: Incoming, name: str, args: str = ""):
        turn = await self.turn(inc)
        return await getattr(self.memory.commands, name)(turn, args)

    async def close(self) -> None:
        await self.memory.aclose()
        await self.llm.aclose()
        self.engine.dispose()


def dm(user: str, text: str = "", platform: str = "telegram", name: str | None = None) -> Incoming:
    return Incoming(platform=platform, user_id=user, chat_id=f"dm-{user}", text=text, user_name=name or user)


def group(user: str, text: str = "", chat: str = "g1", platform: str = "telegram", name: str | None = None) -> Incoming:
    return Incoming(platform=platform, user_id=user, chat_id=chat, text=text, user_name=name or user, is_group=True)


@pytest.fixture
def script(fake_llm) -> LLMScript:
    s = LLMScript()
    fake_llm.set_default(s)
    return s


@pytest.fixture
async def make_engine(tmp_path, fake_llm):
    """Factory: ``await make_engine(config=…)``; engines over the same file share state (restart)."""
    made: list[MiniEngine] = []

    def factory(**kwargs) -> MiniEngine:
        eng = MiniEngine(tmp_path / "fuzi.sqlite3", fake_llm, **kwargs)
        made.append(eng)
        return eng

    yield factory
    for eng in made:
        await eng.close()


def error_503() -> Error:
    return Error(503)


def profile_json(**values) -> str:
    return json.dumps(values, ensure_ascii=False)
