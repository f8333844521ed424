"""The one error shape of the web API, which routes declare which statuses, and the handlers that
answer every error in that shape (docs/web.md, "Errors").

Every error body is `ErrorOut`: ``{"error": word, "detail": sentence or [problem]}``, plus
``retry_after_s`` with 429. The middleware in adapters/web/hardening.py writes the same shape for the
errors it answers before any route runs (400 bad_host, 403, 413, 429).
"""

from __future__ import annotations

from typing import Literal

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

log = structlog.get_logger(__name__)

ErrorWord = Literal[
    "bad_request",
    "bad_host",
    "unauthorized",
    "forbidden",
    "not_found",
    "conflict",
    "method_not_allowed",
    "body_too_large",
    "unsupported_media_type",
    "invalid_request",
    "too_many_requests",
    "internal",
    "unavailable",
    "error",
]
ERROR_WORDS: dict[int, ErrorWord] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "too_many_requests",
    500: "internal",
    503: "unavailable",
}
_WHEN = {
    400: "bad_request; bad_host: a Host other than localhost/loopback on a server without a secret",
    401: "unauthorized: no, an expired, a revoked or an invalid bearer token or Mini App init data",
    403: "forbidden: a state-changing request from another site's page",
    404: "not_found",
    409: "conflict: over a limit (bookmarks)",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_request: a parameter or the body breaks the declared schema (detail lists the problems)",
    429: "too_many_requests: the per-IP limit (Retry-After header, retry_after_s)",
    500: "internal: an unexpected failure (logged with its trace; no stack trace is sent)",
}


class Problem(BaseModel):
    """One reason a request was invalid."""

    loc: list[str | int] = Field(description='where: ["body", "title"], ["query", "limit"] …')
    msg: str
    type: str = Field(description="a word: missing, string_too_long, less_than_equal …")


class ErrorOut(BaseModel):
    """Every error body."""

    error: ErrorWord = Field(description="what kind of error")
    detail: str | list[Problem] = Field(description="a sentence; for invalid_request the list of problems")
    retry_after_s: int | None = Field(None, description="with too_many_requests only: seconds to wait")


def errors(*codes: int) -> dict[int | str, dict]:
    """OpenAPI ``responses`` entries for these error statuses, each with the `ErrorOut` body."""
    return {code: {"model": ErrorOut, "description": _WHEN.get(code, ERROR_WORDS[code])} for code in codes}


ANY_ROUTE = (400, 413, 500)
"""What any route can answer: a foreign Host (local mode), an oversize body, an unexpected failure."""
API = (*ANY_ROUTE, 401, 429)
"""Plus what every authenticated /v1 route can answer."""
CHANGE = (*API, 403)
"""Plus the cross-site refusal of a state-changing (POST, PATCH, DELETE) route."""


def body(word: str, detail: object, **extra: object) -> dict:
    """An `ErrorOut` as JSON-ready data."""
    return {"error": word, "detail": detail, **extra}


def install_error_handlers(app: FastAPI) -> None:
    """Answer every HTTPException, invalid request and unexpected exception with `ErrorOut`."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
        word = ERROR_WORDS.get(exc.status_code, "error")
        return JSONResponse(body(word, str(exc.detail)), status_code=exc.status_code, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        problems = [
            {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", "invalid"))}
            for e in exc.errors()
        ]
        return JSONResponse(body("invalid_request", problems), status_code=422)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception):
        log.error("web_request_failed", path=request.url.path, error=type(exc).__name__, exc_info=exc)
        return JSONResponse(body("internal", "something went wrong"), status_code=500)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this request's path (Starlette names only the first route's)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)
