"""ReAct agent limits and optional web search (FUZI_AGENT_*, FUZI_WEB_SEARCH_*)."""

from pydantic import Field, SecretStr

from bot.settings.base import Section, section


class AgentSettings(Section):
    """ReAct agent (FUZI_AGENT_*): the reply's time is FUZI_ENGINE_REPLY_DEADLINE_S.

    The per-phase limits (a tool call, the forced final answer) are constants of core/agent/loop.py
    under that one deadline (docs/settings.md).
    """

    model_config = section("FUZI_AGENT_")

    max_rounds: int = Field(5, ge=1, description="most tool rounds in one reply before a final answer is forced (cost)")


class WebSearchSettings(Section):
    """Optional web search tool (FUZI_WEB_SEARCH_*): registered only when a provider is set.

    Tavily is used when `tavily_api_key` is set, otherwise SearxNG when `searxng_url` is set.
    """

    model_config = section("FUZI_WEB_SEARCH_")

    tavily_api_key: SecretStr | None = Field(None, description="Tavily API key: turns the web_search tool on")
    searxng_url: str | None = Field(None, description="a SearxNG instance used when no Tavily key is set")

    @property
    def provider(self) -> str | None:
        """ "tavily", "searxng" or None when web search is not configured."""
        if self.tavily_api_key is not None and self.tavily_api_key.get_secret_value().strip():
            return "tavily"
        if self.searxng_url and self.searxng_url.strip():
            return "searxng"
        return None
