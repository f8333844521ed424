"""ASGI middleware in front of every route: Host and Origin checks (adapters/web/sites.py), per-IP
limit (before auth), body size limit, security headers.

Pure ASGI (not BaseHTTPMiddleware), so event streams pass through unbuffered.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable

import structlog
from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.web.sites import Network, client_ip, cross_site, local_host
from core.guards.limits import SlidingWindow

log = structlog.get_logger(__name__)

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
}
_RAW_HEADERS = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
FRAMED_BY_TELEGRAM = "/read"
"""The reading room is also a Telegram Mini App: Telegram Web shows it in a frame of web.telegram.org."""
_TELEGRAM_FRAME = [
    (k, v.replace(b"frame-ancestors 'none'", b"frame-ancestors https://web.telegram.org"))
    for k, v in _RAW_HEADERS
    if k != b"x-frame-options"
]


class BodyTooLarge(HTTPException):
    """The request body passed the size limit while the app was reading it (FastAPI passes an
    HTTPException raised while reading the body through unchanged: the client gets 413)."""

    def __init__(self, limit: int):
        super().__init__(413, f"at most {limit} bytes")


class IpLimiter:
    """At most ``per_minute`` requests per client address in any 60 s (a moving window: the same
    SlidingWindow as the per-person limits, kept in this process; nothing runs between requests)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.per_minute, self._clock = per_minute, clock
        self._window = SlidingWindow(60.0)
        self._ops = 0

    def allow(self, ip: str) -> bool:
        now = self._clock()
        self._ops += 1
        if self._ops >= max(1024, len(self._window)):  # idle addresses dropped: O(1) amortised
            self._ops = 0
            self._window.sweep(now)
        if self._window.retry_after(ip, self.per_minute, now) is not None:
            return False
        self._window.add(ip, now)
        return True

    def retry_after_s(self, ip: str) -> int:
        wait = self._window.retry_after(ip, self.per_minute, self._clock())
        return max(1, math.ceil(wait or 0))


class Hardening:
    """Limits and headers around the app.

    Args:
        app: the ASGI app.
        max_body_bytes: larger bodies get 413 (by Content-Length, or counted while read).
        limiter: the per-IP limiter; applies to paths under ``limited_prefix``.
        on_limited: called once per refused request (metrics).
        local_hosts: None: any Host; else only localhost, loopback and these names (local mode).
        allowed_origins: other sites whose pages may send state-changing requests (CORS origins).
        proxies: reverse proxies whose X-Forwarded-For names the client.
        large_bodies: paths that take larger bodies, with their own limit (the image upload).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        limiter: IpLimiter,
        limited_prefix: str = "/v1/",
        on_limited: Callable[[], None] = lambda: None,
        local_hosts: tuple[str, ...] | None = None,
        allowed_origins: tuple[str, ...] = (),
        proxies: tuple[Network, ...] = (),
        large_bodies: dict[str, int] | None = None,
    ):
        self.app, self.max_body, self.limiter = app, max_body_bytes, limiter
        self.large_bodies = large_bodies or {}
        self.prefix, self.on_limited = limited_prefix, on_limited
        self.local_hosts, self.allowed_origins, self.proxies = local_hosts, allowed_origins, proxies

    async def _refused_site(self, scope: Scope, send: Send) -> bool:
        """Answer a foreign Host (local mode) or a cross-site state change; True when refused."""
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers") or []}
        if self.local_hosts is not None and not local_host(headers.get("host", ""), self.local_hosts):
            log.warning("web_foreign_host", path=scope["path"])
            await _json(send, 400, {"error": "bad_host", "detail": "this server answers localhost only"})
            return True
        if cross_site(scope.get("method", "GET"), headers, self.allowed_origins):
            log.warning("web_cross_site", path=scope["path"], method=scope.get("method"))
            await _json(send, 403, {"error": "forbidden", "detail": "cross-site request refused"})
            return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if await self._refused_site(scope, send):
            return
        peer = (scope.get("client") or ("unknown", 0))[0]
        forwarded = dict(scope.get("headers") or []).get(b"x-forwarded-for")
        ip = client_ip(peer, forwarded.decode("latin-1") if forwarded else None, self.proxies)
        if scope["path"].startswith(self.prefix) and not self.limiter.allow(ip):
            self.on_limited()
            log.info("web_ip_limited", path=scope["path"])
            retry = str(self.limiter.retry_after_s(ip))
            await _json(
                send,
                429,
                {"error": "too_many_requests", "detail": "slow down", "retry_after_s": int(retry)},
                [(b"retry-after", retry.encode())],
            )
            return
        limit = self.large_bodies.get(scope["path"], self.max_body)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _json(send, 413, {"error": "body_too_large", "detail": f"at most {limit} bytes"})
            return
        started, received = False, 0

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def secured_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                extra = _TELEGRAM_FRAME if scope["path"] == FRAMED_BY_TELEGRAM else _RAW_HEADERS
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        try:
            await self.app(scope, counted_receive, secured_send)
        except BodyTooLarge:
            if not started:
                await _json(send, 413, {"error": "body_too_large", "detail": f"at most {limit} bytes"})


async def _json(send: Send, status: int, body: dict, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    data = json.dumps(body).encode()
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        *_RAW_HEADERS,
        *(headers or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})
