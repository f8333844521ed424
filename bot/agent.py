"""The agent's side of the LLM ladder: its tools (the classics search, web search when configured)
and the tool-calling loop over the LLM port."""

from __future__ import annotations

from typing import cast

from adapters.common.metrics import TimedSearch
from bot.settings import Settings
from core.agent import Agent
from core.language.script import ScriptConverter, SimplifiedQueries
from core.llm.types import LLM
from core.retrieval.retriever import HybridRetriever
from core.retrieval.tools import classics_tools
from core.tools import ToolClient, build_web_search_server


def build_tools(settings: Settings, retriever: HybridRetriever | TimedSearch, scripts: ScriptConverter) -> ToolClient:
    """The classics tools over `retriever` (queries in Traditional searched in Simplified), plus web
    search when a provider is configured. Connected by the caller (`await tools.connect()`)."""
    tools = ToolClient([classics_tools(cast(HybridRetriever, SimplifiedQueries(retriever, scripts)))])
    web = build_web_search_server(settings.web_search)
    if web is not None:
        tools.add_server(web)
    return tools


def build_agent(settings: Settings, llm: LLM | None, tools: ToolClient) -> Agent | None:
    """The tool-calling agent (None without an LLM: the ladder answers from the texts alone)."""
    if llm is None:
        return None
    return Agent(llm, tools, max_rounds=settings.agent.max_rounds)
