"""A local fake of the web search providers on 127.0.0.1: Tavily (`POST /search`) and SearxNG
(`GET /search?format=json`), answering from a fixed list of results.

Usage::

    from tests.fakes.search_provider import fake_search  # noqa: F401

    async def test_x(fake_search):
        fake_search.results = [{"title": "…", "url": "https://…", "content": "…"}]
        fake_search.fail_with(429)            # next request only
        web = build_web_search_tool(WebSearchSettings(tavily_api_key="k"), tavily_base_url=fake_search.base_url)
        ...
        assert fake_search.requests[0]["json"]["query"] == "…"
"""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass, field
from typing import Any

import pytest_asyncio
from aiohttp import web

DEFAULT_RESULTS = [
    {
        "title": "Confucius - Wikipedia",
        "url": "https://en.wikipedia.org/wiki/Confucius",
        "content": "Confucius was a Chinese philosopher of the Spring and Autumn period.",
    },
    {
        "title": "Qufu",
        "url": "https://en.wikipedia.org/wiki/Qufu",
        "content": "Qufu is a city in Shandong, the hometown of Confucius.",
    },
    {
        "title": "Analects",
        "url": "https://en.wikipedia.org/wiki/Analects",
        "content": "The Analects is a collection of sayings attributed to Confucius.",
    },
    {"title": "Mencius", "url": "https://en.wikipedia.org/wiki/Mencius", "content": "Mencius was a philosopher."},
]


@dataclass
class FakeSearch:
    """The fake provider. `requests` records method, path, query, headers and JSON body of each call.

    Attributes:
        results: what every successful search returns (truncated to the requested count for Tavily).
        api_key: the bearer key Tavily requests must carry (401 otherwise).
        delay: seconds to wait before answering.
    """

    results: list[dict[str, Any]] = field(default_factory=lambda: list(DEFAULT_RESULTS))
    api_key: str = "test-key"
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""
    _failures: list[int] = field(default_factory=list)
    _runner: web.AppRunner | None = None

    def fail_with(self, status: int) -> FakeSearch:
        """Answer the next request with this HTTP status."""
        self._failures.append(status)
        return self

    async def start(self) -> FakeSearch:
        app = web.Application()
        app.router.add_post("/search", self._tavily)
        app.router.add_get("/search", self._searxng)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5, handle_signals=False)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        await web.SockSite(self._runner, sock).start()
        self.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _record(self, request: web.Request) -> web.Response | None:
        body = await request.json() if request.can_read_body else None
        self.requests.append(
            {
                "method": request.method,
                "path": request.path,
                "query": dict(request.query),
                "headers": {k.lower(): v for k, v in request.headers.items()},
                "json": body,
            }
        )
        await asyncio.sleep(self.delay)
        if self._failures:
            status = self._failures.pop(0)
            return web.json_response({"detail": {"error": f"fake error {status}"}}, status=status)
        return None

    async def _tavily(self, request: web.Request) -> web.Response:
        failed = await self._record(request)
        if failed is not None:
            return failed
        if request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return web.json_response({"detail": {"error": "Unauthorized: missing or invalid API key."}}, status=401)
        body = self.requests[-1]["json"] or {}
        count = int(body.get("max_results", 5))
        results = [{**r, "score": 0.9 - i / 10} for i, r in enumerate(self.results[:count])]
        return web.json_response({"query": body.get("query"), "results": results, "response_time": 0.01})

    async def _searxng(self, request: web.Request) -> web.Response:
        failed = await self._record(request)
        if failed is not None:
            return failed
        if request.query.get("format") != "json":
            return web.Response(text="<html>not json</html>", content_type="text/html")
        results = [{**r, "engine": "fake"} for r in self.results]
        return web.json_response(
            {"query": request.query.get("q"), "number_of_results": len(results), "results": results}
        )


@pytest_asyncio.fixture
async def fake_search():
    """A started :class:`FakeSearch`, stopped after the test."""
    fake = await FakeSearch().start()
    try:
        yield fake
    finally:
        await fake.stop()
