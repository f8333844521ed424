"""Composes the HTTP front door: `fuzi serve` (chat API, page, ops) and the ops port of `fuzi run`.

Authentication is decided here: with FUZI_WEB_JWT_SECRET every API call needs a bearer JWT; without
it the server serves one local person, and only on a loopback address (anything else refuses to start).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
import time
from collections.abc import Callable

import structlog
import uvicorn
from fastapi import FastAPI
from sqlalchemy import text

from adapters.common.metrics import FuziMetrics, ObservedEngine
from adapters.common.startup import PlatformStatus
from adapters.web.app import Readiness, WebConfig, add_ops_routes, create_app
from adapters.web.auth import Authenticator, JwtAuth, LocalAuth, RevocationCache, Revocations, parse_ttl
from adapters.web.chats import ChatStore
from adapters.web.reading import ReadingRoom
from bot.errors import StartupError
from bot.settings import Settings
from bot.wiring import Runtime
from core.books import CorpusError, load_library
from core.language.script import ScriptConverter
from core.language.scripted_history import ScriptedHistory
from core.reading.shelf import Shelf
from core.retrieval.glosses import load_glosses

log = structlog.get_logger(__name__)

LOCAL_USER = "local"  # the one person a loopback server without a secret serves (was FUZI_WEB_LOCAL_USER)


def is_loopback(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def max_ttl_s(settings: Settings) -> int:
    """FUZI_WEB_TOKEN_MAX_TTL in seconds (StartupError when unreadable)."""
    try:
        return parse_ttl(settings.web.token_max_ttl)
    except ValueError as exc:
        raise StartupError(f"FUZI_WEB_TOKEN_MAX_TTL: {exc}") from None


def authenticator(settings: Settings, host: str, revocations: Revocations | None = None) -> Authenticator:
    """JWT auth with a secret; the local person on loopback without one; else StartupError."""
    secret = settings.web.jwt_secret
    if secret is not None and secret.get_secret_value():
        cache = RevocationCache(revocations) if revocations is not None else None
        return JwtAuth(secret.get_secret_value(), max_ttl_s=max_ttl_s(settings), revocations=cache)
    if not is_loopback(host):
        raise StartupError(
            f"refusing to serve on {host} without FUZI_WEB_JWT_SECRET (anyone could chat as anyone); "
            "set a secret or bind to 127.0.0.1"
        )
    return LocalAuth(LOCAL_USER)


STORAGE_UNREADY_AFTER_S = 15.0
"""Storage failing every check for this long makes /readyz 503; shorter blips are "degraded": a
load balancer should not take every replica out of service for a database hiccup they all share."""


def readiness(
    runtime: Runtime | Callable[[], Runtime | None], platforms: PlatformStatus | None = None, clock=time.monotonic
) -> Readiness:
    """Storage answers a query, the passage index is loaded and non-empty; the LLM breaker's state;
    each chat platform's connection ("ok" once reached; "connecting"/"unreachable" make it not ready).

    What makes the process useless is "error" (/readyz 503): no index, storage failing for
    STORAGE_UNREADY_AFTER_S. Redis is "degraded" when down (limits, leases and the breaker fail open,
    docs/deploy.md), as is storage during its first seconds of failure. `runtime` may be a function
    that gives None while the process is still starting (the ops port of `fuzi run` serves from
    the first second): then "startup" is "starting" (503), beside "storage" while it is retried.
    """
    failing_since: list[float] = []

    async def check() -> dict[str, str]:
        platform_states = dict(platforms.states) if platforms is not None else {}
        current = runtime() if callable(runtime) else runtime
        if current is None:
            return {"startup": "starting"} | platform_states
        return platform_states | await _checks(current)

    async def _checks(runtime: Runtime) -> dict[str, str]:
        storage = await _storage_state(runtime)
        if storage == "ok":
            failing_since.clear()
        elif not failing_since:
            failing_since.append(clock())
        if storage != "ok" and clock() - failing_since[0] < STORAGE_UNREADY_AFTER_S:
            storage = "degraded"
        checks = {"storage": storage, "index": _index_state(runtime), "llm": _breaker_state(runtime)}
        if runtime.redis is not None:  # N processes: limits and leases live in Redis, failing open
            checks["redis"] = "ok" if await _redis_state(runtime) == "ok" else "degraded"
        return checks

    return check


async def _storage_state(runtime: Runtime) -> str:
    def ping() -> None:
        with runtime.storage.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    try:
        await asyncio.wait_for(asyncio.to_thread(ping), timeout=3.0)
        return "ok"
    except Exception as exc:
        log.warning("readiness_storage_failed", error=type(exc).__name__)
        return "error"


async def _redis_state(runtime: Runtime) -> str:
    try:
        assert runtime.redis is not None, "asked only when FUZI_REDIS_URL is set"
        await asyncio.wait_for(runtime.redis.ping(), timeout=3.0)
        return "ok"
    except Exception as exc:
        log.warning("readiness_redis_failed", error=type(exc).__name__)
        return "error"


def _index_state(runtime: Runtime) -> str:
    try:
        return "ok" if runtime.retriever.ready and runtime.retriever.size > 0 else "empty"
    except Exception as exc:
        log.warning("readiness_index_failed", error=type(exc).__name__)
        return "error"


def _breaker_state(runtime: Runtime) -> str:
    return str(getattr(runtime.llm, "state", "none")) if runtime.llm is not None else "none"


def build_web_app(settings: Settings, runtime: Runtime, metrics: FuziMetrics, host: str) -> FastAPI:
    """The `fuzi serve` app over a running engine."""
    w = settings.web
    auth = authenticator(settings, host, runtime.storage.revocations)
    config = WebConfig(
        max_body_bytes=w.max_body_bytes,
        per_ip_per_minute=w.per_ip_per_minute,
        cors_origins=w.origins,
        heartbeat_s=w.heartbeat_s,
        local_hosts=tuple(w.hosts) if isinstance(auth, LocalAuth) else None,
        trusted_proxies=tuple(w.proxies),
    )
    engine = ObservedEngine(runtime.engine, metrics)
    return create_app(
        engine,
        runtime.retriever,
        auth,
        readiness=readiness(runtime),
        metrics=metrics,
        config=config,
        chats=history(runtime),
        operators=runtime.storage.operators,
        reading=reading_room(settings, runtime, auth),
    )


def reading_room(settings: Settings, runtime: Runtime, auth: Authenticator) -> ReadingRoom | None:
    """The reading room over the corpus (None, with one warning, when the corpus cannot be read);
    Telegram Mini App sign-in when TELEGRAM_BOT_TOKEN is set."""
    try:
        passages = load_library(settings.corpus_path).passages  # the books present
    except CorpusError as exc:
        log.warning("reading_room_off", error=str(exc))
        return None
    token = settings.telegram.bot_token.get_secret_value() if settings.telegram.bot_token else None
    return ReadingRoom(
        Shelf(passages),
        runtime.storage.reading,
        runtime.storage.identities,
        auth,
        traditional=(runtime.scripts or ScriptConverter()).traditional,
        glosses=load_glosses(),
        bot_token=token or None,
    )


def history(runtime: Runtime) -> ChatStore:
    """The stored chats as the web shows them again: replies in the script they were shown in."""
    if runtime.scripts is None:
        return runtime.storage.chatlog
    return ScriptedHistory(runtime.storage.chatlog, runtime.storage.settings, runtime.scripts)


def build_ops_app(
    runtime: Runtime | Callable[[], Runtime | None], metrics: FuziMetrics, platforms: PlatformStatus | None = None
) -> FastAPI:
    """Only /healthz, /readyz and /metrics: the ops port of the Telegram and Discord processes."""
    app = FastAPI(title="Fuzi ops", docs_url=None, redoc_url=None, openapi_url=None)
    add_ops_routes(app, readiness(runtime, platforms), metrics)
    return app


class QuietServer(uvicorn.Server):
    """uvicorn without its own signal handling: after SIGTERM it would re-raise the signal and kill the
    process before the engine drains; the caller stops it with ``should_exit`` instead."""

    @contextlib.contextmanager
    def capture_signals(self):
        yield


def uvicorn_server(app: FastAPI, host: str, port: int) -> uvicorn.Server:
    """A uvicorn server for `app` that logs through our logging (no access log: ids are logged per reply)."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        server_header=False,
        proxy_headers=False,  # X-Forwarded-For: only from FUZI_WEB_TRUSTED_PROXIES (adapters/web/sites.py)
        timeout_graceful_shutdown=5,
        lifespan="off",
    )
    return QuietServer(config)


async def serve_until_signalled(server: uvicorn.Server) -> None:
    """Run ``server`` until SIGTERM or SIGINT, then let it finish the replies in flight (bounded)."""
    from bot.shutdown import arm_watchdog

    def stop() -> None:
        server.should_exit = True
        arm_watchdog()  # gone within the grace even if the drain or storage hangs

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    try:
        await server.serve()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
