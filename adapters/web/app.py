"""The FastAPI application: routes, the page, health, metrics, error shapes and hardening.

`create_app` takes everything built elsewhere (bot/web.py composes it): the engine, passage lookup,
a readiness probe, the authenticator and the metrics. Every error is `errors.ErrorOut` (``{"error",
"detail"}``), every status a route can answer is in the OpenAPI document, and no response ever
carries a stack trace.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Literal

import structlog
from fastapi import Depends, FastAPI, Path, Query, Request, Security
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from adapters.common.metrics import CONTENT_TYPE, FuziMetrics
from adapters.web.admin import Operators, add_admin_routes
from adapters.web.auth import Authenticator
from adapters.web.chats import (
    CHAT_PATTERN,
    PAGE_MAX,
    ChatOut,
    ChatRoutes,
    ChatsOut,
    ChatStore,
    DeletedOut,
    MessagesOut,
    TitleIn,
)
from adapters.web.errors import ANY_ROUTE, API, CHANGE, errors, install_error_handlers
from adapters.web.handlers import (
    CancelRequest,
    ChatRequest,
    MeOut,
    NoticeOut,
    PassageOut,
    Passages,
    SkillsOut,
    WebHandlers,
    chat_request,
)
from adapters.web.hardening import Hardening, IpLimiter
from adapters.web.media import IMAGE_PATH, MAX_IMAGE_BYTES, add_media_routes
from adapters.web.reading import ReadingRoom, add_reading_routes
from adapters.web.sites import networks
from adapters.web.sse import MEDIA_TYPE
from core.ports import Engine

log = structlog.get_logger(__name__)

Readiness = Callable[[], Awaitable[dict[str, str]]]
"""Returns a state word per dependency; ``storage`` and ``index`` must be ``ok`` to be ready."""
_BEARER = HTTPBearer(
    auto_error=False,
    bearerFormat="JWT",
    description="HS256 JWT from `fuzi token create --user NAME`; not needed on a loopback server without a secret",
)

_BEARER_DEP = Security(_BEARER)  # declares the scheme in the OpenAPI document; `h.user` reads the header
MESSAGE_ID_MAX = 2**63 - 1
"""The largest message id storage can hold (SQLite INTEGER, PostgreSQL BIGINT); `before` stops there."""


class HealthOut(BaseModel):
    status: Literal["ok"]


class ReadyOut(BaseModel):
    status: Literal["ready", "degraded", "not_ready"]
    checks: dict[str, str] = Field(description="storage, index, llm (the breaker: reported only), redis …")


@dataclass(frozen=True)
class WebConfig:
    """What the app itself needs from the settings (kept apart so tests can build apps directly)."""

    max_body_bytes: int = 65536
    per_ip_per_minute: int = 120
    cors_origins: list[str] = field(default_factory=list)
    heartbeat_s: float = 15.0
    local_hosts: tuple[str, ...] | None = None  # local mode: only localhost, loopback and these Host names
    trusted_proxies: tuple[str, ...] = ()  # their X-Forwarded-For names the client


def create_app(
    engine: Engine,
    passages: Passages,
    auth: Authenticator,
    *,
    readiness: Readiness,
    metrics: FuziMetrics,
    config: WebConfig = WebConfig(),
    chats: ChatStore | None = None,
    operators: Operators | None = None,
    reading: ReadingRoom | None = None,
) -> FastAPI:
    """The ASGI app for ``fuzi serve`` (without ``chats`` the chat-list routes are absent; without
    ``operators`` the operator console, adapters/web/admin.py; without ``reading`` the reading room)."""
    app = FastAPI(
        title="Fuzi (夫子)",
        version="1",
        docs_url=None,
        redoc_url=None,
        description="Chat with Fuzi over HTTP: SSE streaming replies, JWT bearer auth.",
    )
    h = WebHandlers(engine, passages, auth, heartbeat_s=config.heartbeat_s)
    _routes(app, h)
    if chats is not None:
        _chat_routes(app, h, ChatRoutes(chats))
    add_media_routes(app, h, _who(h))
    if reading is not None:
        add_reading_routes(app, reading, _BEARER_DEP)
    add_ops_routes(app, readiness, metrics)
    if operators is not None:
        add_admin_routes(app, auth, operators)
    _page(app)
    install_error_handlers(app)
    if config.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=config.cors_origins,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
            expose_headers=["X-Trace-Id"],
        )
    app.add_middleware(
        Hardening,
        max_body_bytes=config.max_body_bytes,
        limiter=IpLimiter(config.per_ip_per_minute),
        on_limited=lambda: metrics.rate_limited("web"),
        local_hosts=config.local_hosts,
        allowed_origins=tuple(config.cors_origins),
        proxies=networks(config.trusted_proxies),
        large_bodies={IMAGE_PATH: MAX_IMAGE_BYTES},
    )
    return app


def _who(h: WebHandlers):
    async def who(request: Request, _bearer: HTTPAuthorizationCredentials | None = _BEARER_DEP) -> str:
        return await h.user(request)

    return Depends(who)


def _chat_routes(app: FastAPI, h: WebHandlers, r: ChatRoutes) -> None:
    user = _who(h)
    chat_id = Path(pattern=CHAT_PATTERN, max_length=32, examples=["main"], description="one of the person's chats")

    @app.get("/v1/chats", response_model=ChatsOut, tags=["chats"], responses=errors(*API))
    async def chats(who: str = user):
        """The person's chats, newest first."""
        return await r.list(who)

    @app.get("/v1/chats/{chat}/messages", response_model=MessagesOut, tags=["chats"], responses=errors(*API, 404, 422))
    async def messages(
        chat: str = chat_id,
        before: int | None = Query(None, ge=1, le=MESSAGE_ID_MAX, description="a message id: the page before it"),
        limit: int = Query(50, ge=1, le=PAGE_MAX),
        who: str = user,
    ):
        """A page of the chat's messages, oldest first; ``before`` (a message id) pages back; 404 for a
        chat the person does not have (never had, or deleted)."""
        return await r.messages(who, chat, before, limit)

    @app.patch("/v1/chats/{chat}", response_model=ChatOut, tags=["chats"], responses=errors(*CHANGE, 404, 422))
    async def rename(body: TitleIn, chat: str = chat_id, who: str = user):
        """Give one of the person's chats a title; 404 for a chat they do not have (a deleted one stays deleted)."""
        return await r.rename(who, chat, body)

    @app.delete("/v1/chats/{chat}", response_model=DeletedOut, tags=["chats"], responses=errors(*CHANGE, 422))
    async def delete(chat: str = chat_id, who: str = user):
        """Forget the chat's history and summary (long-term memory stays). Idempotent."""
        return await r.delete(who, chat)


def _routes(app: FastAPI, h: WebHandlers) -> None:
    user = _who(h)

    async def chat(body: ChatRequest, who: str = user):
        """Send a message; the reply streams back as Server-Sent Events."""
        return await h.chat(body, who)

    chat.__annotations__["body"] = chat_request([name for name, _ in h.engine.skills()])  # the engine's skills
    app.post(
        "/v1/chat",
        response_class=Response,
        tags=["chat"],
        responses={
            **errors(*CHANGE, 422),
            200: {"content": {MEDIA_TYPE: {}}, "description": "events: delta, reset, tool, final, notice"},
        },
    )(chat)

    @app.post("/v1/chat/cancel", response_model=NoticeOut, tags=["chat"], responses=errors(*CHANGE, 422))
    async def cancel(body: CancelRequest | None = None, who: str = user):
        """Stop the reply in progress (the stream ends; the partial text is kept as cancelled)."""
        return await h.cancel(body, who)

    @app.get("/v1/skills", response_model=SkillsOut, tags=["chat"], responses=errors(*API, 422))
    async def skills(chat: str | None = Query(None, pattern=CHAT_PATTERN, max_length=32), who: str = user):
        """Every skill, and the one the chat (default main) is in."""
        return await h.skills(who, chat)

    @app.get(
        "/v1/passages/{passage_id}", response_model=PassageOut, tags=["classics"], responses=errors(*API, 404, 422)
    )
    async def passage(passage_id: str = Path(max_length=64, examples=["lunyu:3.22"]), who: str = user):
        """The full text a footnote points to."""
        return await h.passage(passage_id, who)

    @app.get("/v1/me", response_model=MeOut, tags=["chat"], responses=errors(*API))
    async def me(who: str = user):
        return await h.me(who)


def add_ops_routes(app: FastAPI, readiness: Readiness, metrics: FuziMetrics) -> None:
    """``/healthz`` (the process answers), ``/readyz`` (storage and index usable; breaker reported), ``/metrics``.

    /readyz is 503 only when a check says the process cannot work; a check that says "degraded" (a
    dependency it fails open on, e.g. Redis) keeps it 200 with ``"status": "degraded"`` in the body.
    """

    @app.get("/healthz", response_model=HealthOut, tags=["ops"], responses=errors(*ANY_ROUTE))
    async def healthz():
        return {"status": "ok"}

    ready_503: dict[int | str, dict] = {503: {"model": ReadyOut, "description": "not ready: a check fails"}}

    @app.get("/readyz", response_model=ReadyOut, tags=["ops"], responses={**errors(*ANY_ROUTE), **ready_503})
    async def readyz():
        checks = await readiness()
        states = [state for name, state in checks.items() if name != "llm"]  # the breaker is reported only
        ready = all(state in ("ok", "degraded") for state in states)  # degraded: working, fails open
        status = "not_ready" if not ready else "degraded" if "degraded" in states else "ready"
        return JSONResponse({"status": status, "checks": checks}, status_code=200 if ready else 503)

    @app.get(
        "/metrics",
        tags=["ops"],
        response_class=Response,
        responses={**errors(*ANY_ROUTE), 200: {"content": {CONTENT_TYPE: {}}, "description": "Prometheus text"}},
    )
    async def prometheus():
        return Response(metrics.exposition(), media_type=CONTENT_TYPE)


def _page(app: FastAPI) -> None:
    static = files("adapters.web") / "static"

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index():
        return HTMLResponse(static.joinpath("index.html").read_text("utf-8"), headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(packages=[("adapters.web", "static")]), name="static")
