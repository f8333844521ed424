"""The agent's side of the LLM ladder: its tools (the classics tools, web search when configured)
and the tool-calling loop over the LLM port."""

from __future__ import annotations

from bot.settings import Settings
from core.agent import Agent
from core.language.script import ScriptConverter
from core.llm.types import LLM
from core.ports import PassageSearch
from core.retrieval.simplified import SimplifiedQueries
from core.tools import Toolset, build_web_search_tool, classics_tools


def build_tools(settings: Settings, passages: PassageSearch, scripts: ScriptConverter) -> Toolset:
    """The classics tools over `passages` (queries in Traditional searched in Simplified), plus web
    search when a provider is configured; the memory tools are added by `register_memory`."""
    tools = Toolset(classics_tools(SimplifiedQueries(passages, scripts)))
    web = build_web_search_tool(settings.web_search)
    if web is not None:
        tools.add(web)
    return tools


def build_agent(settings: Settings, llm: LLM | None, tools: Toolset) -> Agent | None:
    """The tool-calling agent (None without an LLM: the ladder answers from the texts alone)."""
    if llm is None:
        return None
    return Agent(llm, tools, max_rounds=settings.agent.max_rounds)
