"""The optional `web_search` tool: Tavily or SearxNG, registered only when one is configured.

Results come back as citable passages (id = url, ref = title and url, text = snippet), so an answer
that leans on the web cites its sources like it cites the classics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import structlog
from pydantic import Field

from core.tools.tool import Tool, ToolContext, ToolError, tool

if TYPE_CHECKING:  # aiohttp is imported when a provider is built: a start without web search skips it
    import aiohttp

log = structlog.get_logger(__name__)

_SNIPPET_CHARS = 400
# Formerly FUZI_WEB_SEARCH_TAVILY_BASE_URL, _MAX_RESULTS, _TIMEOUT_S: only tests change them (arguments).
TAVILY_BASE_URL = "https://api.tavily.com"
MAX_RESULTS = 5  # the most results one call returns, whatever the model asks for
TIMEOUT_S = 10.0  # one provider request; the reply deadline caps it too


@dataclass(frozen=True)
class SearchHit:
    """One web result."""

    title: str
    url: str
    snippet: str


class SearchProvider(Protocol):
    """A web search backend."""

    name: str

    async def search(self, query: str, k: int) -> list[SearchHit]: ...


class WebSearchConfig(Protocol):
    """The settings `build_web_search_tool` reads (bot.settings.agent.WebSearchSettings fits)."""

    @property
    def provider(self) -> str | None: ...
    @property
    def tavily_api_key(self) -> Any: ...
    @property
    def searxng_url(self) -> str | None: ...


class _HttpProvider:
    """Shared HTTP plumbing: one aiohttp call with a total timeout, errors mapped to ToolError."""

    name = "http"

    def __init__(self, *, timeout_s: float = 10.0, session: aiohttp.ClientSession | None = None):
        import aiohttp

        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._session = session

    async def _json(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        import aiohttp

        try:
            if self._session is not None:
                return await self._send(self._session, method, url, **kwargs)
            async with aiohttp.ClientSession() as session:
                return await self._send(session, method, url, **kwargs)
        except aiohttp.ClientResponseError as exc:
            log.warning("web_search_http_error", provider=self.name, status=exc.status)
            raise ToolError(_status_message(exc.status), hint="Answer without web results.") from None
        except (TimeoutError, aiohttp.ClientError, ValueError) as exc:
            log.warning("web_search_unreachable", provider=self.name, error=type(exc).__name__)
            raise ToolError("web search is unreachable now", hint="Answer without web results.") from None

    async def _send(self, session: aiohttp.ClientSession, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        async with session.request(method, url, timeout=self._timeout, raise_for_status=True, **kwargs) as resp:
            data = await resp.json(content_type=None)
        if not isinstance(data, dict):
            raise ValueError("search response is not a JSON object")
        return data


class TavilyProvider(_HttpProvider):
    """Tavily search API: `POST {base_url}/search` with a bearer key."""

    name = "tavily"

    def __init__(self, api_key: str, *, base_url: str = TAVILY_BASE_URL, **kwargs: Any):
        super().__init__(**kwargs)
        self._api_key = api_key
        self._url = base_url.rstrip("/") + "/search"

    async def search(self, query: str, k: int) -> list[SearchHit]:
        body = {"query": query, "max_results": k, "search_depth": "basic", "include_answer": False}
        headers = {"Authorization": f"Bearer {self._api_key}"}
        data = await self._json("POST", self._url, json=body, headers=headers)
        return _hits(data.get("results"), k)


class SearxngProvider(_HttpProvider):
    """A SearxNG instance: `GET {url}/search?q=…&format=json` (the instance must allow JSON)."""

    name = "searxng"

    def __init__(self, url: str, **kwargs: Any):
        super().__init__(**kwargs)
        self._url = url.rstrip("/") + "/search"

    async def search(self, query: str, k: int) -> list[SearchHit]:
        data = await self._json("GET", self._url, params={"q": query, "format": "json"})
        return _hits(data.get("results"), k)


def _hits(results: Any, k: int) -> list[SearchHit]:
    hits = []
    for item in results if isinstance(results, list) else []:
        if not isinstance(item, dict) or not item.get("url"):
            continue
        snippet = " ".join(str(item.get("content") or item.get("snippet") or "").split())
        hits.append(SearchHit(str(item.get("title") or item["url"]), str(item["url"]), snippet[:_SNIPPET_CHARS]))
        if len(hits) >= k:
            break
    return hits


def _status_message(status: int) -> str:
    if status in (401, 403):
        return "web search refused the configured key"
    if status == 429:
        return "web search is rate limited now"
    return f"web search failed (HTTP {status})"


def make_provider(
    config: WebSearchConfig,
    *,
    session: aiohttp.ClientSession | None = None,
    tavily_base_url: str = TAVILY_BASE_URL,
    timeout_s: float = TIMEOUT_S,
) -> SearchProvider | None:
    """The configured provider (Tavily first, then SearxNG), or None when neither is set."""
    if config.provider == "tavily":
        key = config.tavily_api_key.get_secret_value()
        return TavilyProvider(key, base_url=tavily_base_url, timeout_s=timeout_s, session=session)
    if config.provider == "searxng" and config.searxng_url:
        return SearxngProvider(config.searxng_url, timeout_s=timeout_s, session=session)
    return None


def web_search_tool(provider: SearchProvider, *, max_results: int = MAX_RESULTS) -> Tool:
    """The `web_search` tool over `provider`."""

    @tool
    async def web_search(ctx: ToolContext, query: str, k: Annotated[int, Field(ge=1, le=10)] = 3) -> dict[str, Any]:
        """Search the web for current or outside facts: modern events, people, places, dates, and
        modern scholarship about Confucius. Do not use it for the words or meaning of the Analects
        or the Book of Songs (search the classics for those), nor for small talk. Results are
        numbered passages you may cite like the classics.

        Args:
            query: a short, specific search query (keywords, in the language most likely to find it).
            k: how many results to return (1-10); a few are usually enough.
        """
        hits = await provider.search(query, min(k, max_results))
        log.info("web_search", provider=provider.name, results=len(hits), trace_id=ctx.trace_id)
        return {"query": query, "passages": [_passage(h) for h in hits]}

    return web_search


def _passage(hit: SearchHit) -> dict[str, str]:
    return {
        "id": hit.url,
        "ref": f"{hit.title} ({hit.url})",
        "text": hit.snippet,
        "title": hit.title,
        "url": hit.url,
        "snippet": hit.snippet,
    }


def build_web_search_tool(
    config: WebSearchConfig,
    *,
    session: aiohttp.ClientSession | None = None,
    tavily_base_url: str = TAVILY_BASE_URL,
    timeout_s: float = TIMEOUT_S,
    max_results: int = MAX_RESULTS,
) -> Tool | None:
    """The `web_search` tool when a provider is configured, else None (the tool is then absent)."""
    provider = make_provider(config, session=session, tavily_base_url=tavily_base_url, timeout_s=timeout_s)
    return web_search_tool(provider, max_results=max_results) if provider else None
