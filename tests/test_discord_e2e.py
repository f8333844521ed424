"""Discord end to end with the real engine: discord.py ↔ fake Discord, ChatService over SQLite,
the real agent and LLM client ↔ fake OpenAI server, classics search over the corpus files."""

from __future__ import annotations

import pytest

from core.agent import Agent
from core.engine.commands import CommandRouter
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.skills import SkillRegistry
from core.tools.classics import search_classics_tool
from core.tools.toolset import Toolset
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_discord import running_bot
from tests.helpers_engine import CorpusRetriever, make_service, sqlite_storage


class EngineWithMenus:
    """ChatService plus the menus an adapter lists (what bot/wiring hands the adapters)."""

    def __init__(self, service, skills: SkillRegistry, router: CommandRouter) -> None:
        self.handle = service.handle
        self._skills, self._router = skills, router

    def skills(self) -> list[tuple[str, str]]:
        return self._skills.choices()

    def commands(self) -> list[tuple[str, str, str]]:
        return self._router.commands()

    def models(self) -> list[str]:
        return []


@pytest.fixture(scope="module")
def corpus() -> CorpusRetriever:
    return CorpusRetriever()


@pytest.fixture
def engine(tmp_path, fake_llm, corpus) -> EngineWithMenus:
    search = search_classics_tool(corpus)  # the real search_classics tool over the corpus double
    llm = OpenAIChatClient(
        base_url=fake_llm.base_url, api_key="sk-test", model="fake", timeout_s=5, retry=RetryPolicy(attempts=1)
    )
    skills, router = SkillRegistry(), CommandRouter()
    agent = Agent(llm, Toolset([search]), max_rounds=3, reply_timeout_s=20)
    service = make_service(
        sqlite_storage(tmp_path), llm=llm, agent=agent, retriever=corpus, skills=skills, router=router
    )
    return EngineWithMenus(service, skills, router)


def _original(fake: FakeDiscord, inter: dict) -> str:
    return (fake.original(inter["token"]) or {}).get("content", "")


async def test_ask_streams_a_cited_answer_from_the_real_engine(fake_discord: FakeDiscord, fake_llm, engine):
    fake_llm.stream_tool_calls([("search_classics", {"query": "管仲之器小哉"})])
    fake_llm.stream_text("管仲之器小哉，是说他器量狭小[1]。", chunk=3, chunk_delay=0.02)
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("ask", {"question": "夫子如何评价管仲？"})
        await fake_discord.wait_until(lambda: "-# [1]" in _original(fake_discord, inter), timeout=20)
    assert _original(fake_discord, inter) == "管仲之器小哉，是说他器量狭小[1]。\n\n-# [1] 《论语·八佾》第22章"
    assert fake_llm.requests[0]["messages"][-1]["content"] == "夫子如何评价管仲？"


async def test_skill_choice_persists_for_the_channel(fake_discord: FakeDiscord, engine):
    async with running_bot(fake_discord, engine):
        switched = await fake_discord.slash("skill", {"skill": "poetry"})
        await fake_discord.wait_until(lambda: "Poetry" in _original(fake_discord, switched))
        menu = await fake_discord.slash("skill")
        await fake_discord.wait_until(lambda: "Modes" in _original(fake_discord, menu))
        dm_menu = await fake_discord.slash("skill", dm=True)
        await fake_discord.wait_until(lambda: "Modes" in _original(fake_discord, dm_menu))
    assert "▶ poetry" in _original(fake_discord, menu)
    assert "▶ teaching" in _original(fake_discord, dm_menu)  # another chat keeps the default
