"""The web app over a real engine, served by a real uvicorn on 127.0.0.1, and an SSE reader.

`web_runtime` builds what `fuzi serve` builds (bot.web.build_web_app over a Runtime): SQLite storage,
the hybrid retriever over the real corpus (hashing embedder), the OpenAI client against the fake
server behind the circuit breaker, the agent with the real `search_classics` tool, an open guard.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import uvicorn

from adapters.common.metrics import FuziMetrics, TimedLLM, TimedSearch
from bot.settings import Settings
from bot.web import QuietServer, build_web_app
from bot.wiring import Runtime
from core.agent import Agent
from core.language.script import ScriptConverter
from core.llm.breaker import CircuitBreakerLLM
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.retrieval.documents import load_corpus
from core.retrieval.embedder import HashingEmbedder
from core.retrieval.indexer import build_index
from core.retrieval.retriever import HybridRetriever
from core.retrieval.store import PassageStore
from core.tools.classics import search_classics_tool
from core.tools.toolset import Toolset
from tests.helpers_corpus import corpus_dir
from tests.helpers_engine import make_service, sqlite_storage


def build_retriever(path: Path) -> HybridRetriever:
    """Index the corpus into `path` (hashing embedder); start the retriever."""
    build_index(PassageStore(path), HashingEmbedder(), load_corpus(corpus_dir()))
    retriever = HybridRetriever(PassageStore(path), HashingEmbedder())
    asyncio.run(retriever.start())
    return retriever


@asynccontextmanager
async def web_runtime(
    tmp_path: Path, fake_llm, retriever, metrics: FuziMetrics, scripts: ScriptConverter | None = None, **service_kw
) -> AsyncIterator[Runtime]:
    client = OpenAIChatClient(
        base_url=fake_llm.base_url, api_key="sk-test", model="fake-model", timeout_s=5, retry=RetryPolicy(attempts=1)
    )
    breaker = CircuitBreakerLLM(client, failures=3, reset_s=60)
    metrics.watch_breaker(lambda: breaker.state)
    llm, search = TimedLLM(breaker, metrics), TimedSearch(retriever, metrics)
    storage = sqlite_storage(tmp_path)
    agent = Agent(llm, Toolset([search_classics_tool(search)]))
    service = make_service(storage, llm=llm, agent=agent, retriever=search, scripts=scripts, **service_kw)
    try:
        yield Runtime(service, storage, search, breaker, scripts=scripts)
    finally:
        await service.aclose()
        await client.aclose()


@asynccontextmanager
async def serving(app) -> AsyncIterator[str]:
    """Serve `app` with uvicorn on a free 127.0.0.1 port; yields the base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = QuietServer(
        uvicorn.Config(
            app, log_config=None, access_log=False, lifespan="off", timeout_graceful_shutdown=2, proxy_headers=False
        )
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


@asynccontextmanager
async def web_app(
    tmp_path, fake_llm, retriever, settings: Settings | None = None, host: str = "127.0.0.1", **service_kw
):
    """(base_url, runtime, metrics) of a served app."""
    metrics = FuziMetrics()
    async with web_runtime(tmp_path, fake_llm, retriever, metrics, **service_kw) as runtime:
        app = build_web_app(settings or Settings(), runtime, metrics, host)
        async with serving(app) as base:
            yield base, runtime, metrics


async def sse(response: httpx.Response) -> AsyncIterator[tuple[str, dict]]:
    """(event, data) pairs from an SSE response."""
    name = None
    async for line in response.aiter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: ") and name:
            yield name, json.loads(line[6:])
            name = None


async def chat_events(
    client: httpx.AsyncClient, base: str, body: dict, headers: dict | None = None
) -> list[tuple[str, dict]]:
    async with client.stream("POST", f"{base}/v1/chat", json=body, headers=headers or {}) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        return [event async for event in sse(response)]
