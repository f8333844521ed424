"""ReAct agent limits and optional web search (FUZI_AGENT_*, FUZI_WEB_SEARCH_*)."""

from pydantic import Field, SecretStr

from bot.settings.base import Section, section


class AgentSettings(Section):
    model_config = section("FUZI_AGENT_")

    max_rounds: int = Field(5, ge=1)
    reply_timeout_s: float = Field(120.0, gt=0)
    tool_timeout_s: float = Field(15.0, gt=0)


class WebSearchSettings(Section):
    model_config = section("FUZI_WEB_SEARCH_")

    tavily_api_key: SecretStr | None = None
    searxng_url: str | None = None
