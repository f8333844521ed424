"""ReAct agent limits and optional web search (FUZI_AGENT_*, FUZI_WEB_SEARCH_*)."""

from pydantic import Field, SecretStr

from bot.settings.base import Section, section


class AgentSettings(Section):
    """Limits of one ReAct reply (FUZI_AGENT_*).

    The reply's time is FUZI_ENGINE_REPLY_DEADLINE_S (one clock per reply); final_answer_timeout_s
    of it (at most a quarter) is kept for the last, tools-free completion that forces an answer.
    """

    model_config = section("FUZI_AGENT_")

    max_rounds: int = Field(5, ge=1)
    tool_timeout_s: float = Field(15.0, gt=0)
    final_answer_timeout_s: float = Field(30.0, gt=0)


class WebSearchSettings(Section):
    """The optional `web_search` tool (FUZI_WEB_SEARCH_*): registered only when a provider is set.

    Tavily is used when `tavily_api_key` is set, otherwise SearxNG when `searxng_url` is set.
    The base URLs are configurable so tests can point them at a local fake.
    """

    model_config = section("FUZI_WEB_SEARCH_")

    tavily_api_key: SecretStr | None = None
    tavily_base_url: str = "https://api.tavily.com"
    searxng_url: str | None = None
    max_results: int = Field(5, ge=1, le=10)
    timeout_s: float = Field(10.0, gt=0)

    @property
    def provider(self) -> str | None:
        """ "tavily", "searxng" or None when web search is not configured."""
        if self.tavily_api_key is not None and self.tavily_api_key.get_secret_value().strip():
            return "tavily"
        if self.searxng_url and self.searxng_url.strip():
            return "searxng"
        return None
