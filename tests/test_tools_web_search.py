"""web_search against a local fake of Tavily and SearxNG; absent when no provider is configured."""

from __future__ import annotations

import pytest

from bot.settings.agent import WebSearchSettings
from core.agent import Agent
from core.citations import CitationBook
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.tools import ToolContext, Toolset
from core.tools.web_search import build_web_search_tool
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.search_provider import fake_search  # noqa: F401

CTX = ToolContext(person_id=1, platform="console", chat_id="c", is_group=False, trace_id="t")


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    for name in ("TAVILY_API_KEY", "SEARXNG_URL"):
        monkeypatch.delenv(f"FUZI_WEB_SEARCH_{name}", raising=False)


def settings(**values) -> WebSearchSettings:
    return WebSearchSettings(_env_file=None, **values)


async def client_for(config: WebSearchSettings, **tuning) -> Toolset:
    """A toolset with web_search; `tuning`: the tool's build values (tavily_base_url, max_results, timeout_s)."""
    web = build_web_search_tool(config, **tuning)
    assert web is not None
    return Toolset([web], timeout_s=5)


def test_absent_when_not_configured():
    assert settings().provider is None
    assert build_web_search_tool(settings()) is None
    assert build_web_search_tool(settings(tavily_api_key="  ")) is None


async def test_tavily_search_returns_citable_results(fake_search):
    client = await client_for(settings(tavily_api_key="test-key"), tavily_base_url=fake_search.base_url)
    assert client.names == ["web_search"]
    description = client.to_openai_tools()[0]["function"]["description"]
    assert "Do not use" in description and "Analects" in description
    outcome = await client.call("web_search", {"query": "孔子 故乡", "k": "2"}, CTX)
    assert outcome.ok, outcome
    request = fake_search.requests[0]
    assert request["method"] == "POST" and request["path"] == "/search"
    assert request["headers"]["authorization"] == "Bearer test-key"
    assert request["json"]["query"] == "孔子 故乡" and request["json"]["max_results"] == 2
    passages = outcome.content["passages"]
    assert [p["url"] for p in passages] == [
        "https://en.wikipedia.org/wiki/Confucius",
        "https://en.wikipedia.org/wiki/Qufu",
    ]
    assert passages[1]["title"] == "Qufu" and "Shandong" in passages[1]["snippet"]
    observation = CitationBook().render(outcome.content)
    assert "[2] Qufu (https://en.wikipedia.org/wiki/Qufu)\nQufu is a city in Shandong" in observation


async def test_results_capped_by_max_results(fake_search):
    config = settings(tavily_api_key="test-key")
    client = await client_for(config, tavily_base_url=fake_search.base_url, max_results=2)
    outcome = await client.call("web_search", {"query": "Confucius", "k": 10}, CTX)
    assert len(outcome.content["passages"]) == 2
    assert fake_search.requests[0]["json"]["max_results"] == 2


async def test_searxng_search(fake_search):
    client = await client_for(settings(searxng_url=fake_search.base_url + "/"))
    outcome = await client.call("web_search", {"query": "Analects"}, CTX)
    assert outcome.ok
    assert fake_search.requests[0]["method"] == "GET"
    assert fake_search.requests[0]["query"] == {"q": "Analects", "format": "json"}
    assert len(outcome.content["passages"]) == 3  # default k
    assert outcome.content["passages"][2]["title"] == "Analects"


async def test_tavily_preferred_over_searxng(fake_search):
    config = settings(tavily_api_key="test-key", searxng_url="http://127.0.0.1:9")
    assert config.provider == "tavily"
    assert (
        await (await client_for(config, tavily_base_url=fake_search.base_url)).call("web_search", {"query": "x"}, CTX)
    ).ok


@pytest.mark.parametrize(
    ("status", "words"), [(429, "rate limited"), (500, "HTTP 500"), (401, "refused the configured key")]
)
async def test_provider_errors_become_observations(fake_search, status, words):
    client = await client_for(settings(tavily_api_key="test-key"), tavily_base_url=fake_search.base_url)
    fake_search.fail_with(status)
    outcome = await client.call("web_search", {"query": "x"}, CTX)
    assert not outcome.ok and outcome.failure == "failed"
    assert words in outcome.error and "test-key" not in outcome.error
    assert outcome.hint == "Answer without web results."


async def test_wrong_key_is_refused_by_provider(fake_search):
    client = await client_for(settings(tavily_api_key="wrong"), tavily_base_url=fake_search.base_url)
    outcome = await client.call("web_search", {"query": "x"}, CTX)
    assert not outcome.ok and "refused the configured key" in outcome.error


async def test_provider_timeout_and_unreachable(fake_search):
    fake_search.delay = 1.0
    slow = await client_for(settings(searxng_url=fake_search.base_url), timeout_s=0.05)
    outcome = await slow.call("web_search", {"query": "x"}, CTX)
    assert not outcome.ok and "unreachable" in outcome.error
    down = await client_for(settings(searxng_url="http://127.0.0.1:9"))
    outcome = await down.call("web_search", {"query": "x"}, CTX)
    assert not outcome.ok and "unreachable" in outcome.error


async def test_results_without_url_are_skipped(fake_search):
    fake_search.results = [{"title": "no url"}]
    client = await client_for(settings(searxng_url=fake_search.base_url))
    outcome = await client.call("web_search", {"query": "x"}, CTX)
    assert outcome.ok and outcome.content["passages"] == []
    assert "(no passages found)" in CitationBook().render(outcome.content)


async def test_agent_cites_web_results_through_the_real_client(fake_search, fake_llm):
    config = settings(searxng_url=fake_search.base_url)
    tools = Toolset([build_web_search_tool(config)])
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="m", retry=RetryPolicy(attempts=1))
    fake_llm.stream_tool_calls([("web_search", {"query": "孔子 故乡", "k": 2})])
    fake_llm.stream_text("夫子生于鲁之曲阜[2]，今属山东[2][5]。")
    try:
        events = [
            e
            async for e in Agent(llm, tools).run(
                [{"role": "user", "content": "孔子的故乡在哪里？"}],
                allowed_tools=None,
                ctx=CTX,
                citations=CitationBook(),
            )
        ]
    finally:
        await llm.aclose()
    result = events[-1]
    assert result.text == "夫子生于鲁之曲阜[1]，今属山东[1]。"
    assert [(c.n, c.id) for c in result.citations] == [(1, "https://en.wikipedia.org/wiki/Qufu")]
    assert "Qufu (https://en.wikipedia.org/wiki/Qufu)" in result.citations[0].ref
    assert fake_search.requests[0]["query"]["q"] == "孔子 故乡"
