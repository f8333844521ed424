"""The operator console's API (OpenAPI tag ``admin``) and its page, ``/admin`` (docs/operators.md).

Every route needs the operator role: a token from ``fuzi token create --admin`` or, in local mode,
the local person. No sign-in: 401; a person's token without the role: 403. Lists are paged (``limit``
and the ``next`` cursor); ``?format=csv`` (or the ``.csv`` path) streams the whole list as CSV, read
from the database page by page, so an export of any size never sits in memory.
"""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib.resources import files
from typing import Any, Literal, Protocol

from fastapi import Depends, FastAPI, HTTPException, Query, Request, Security
from fastapi.responses import HTMLResponse, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from adapters.web.auth import Authenticator, Unauthorized
from adapters.web.errors import API, ErrorOut, errors
from core.storage.operators import Page, csv_cell

DAYS_MAX = 365
PAGE_MAX = 500
CSV_PAGE = 500
_BEARER = HTTPBearer(auto_error=False, bearerFormat="JWT", description="`fuzi token create --user NAME --admin`")
_BEARER_DEP = Security(_BEARER)  # declares the scheme in the OpenAPI document; the header is read below
_FORBIDDEN: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorOut, "description": "forbidden: signed in, but not an operator (no --admin)"}
}
_CSV: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {}}, "description": "JSON, or with format=csv the whole list as CSV"}
}
Format = Literal["json", "csv"]


class Operators(Protocol):
    """Where the figures come from (core.storage.operators.OperatorRepo)."""

    async def stats(self, days: int) -> dict[str, Any]: ...
    async def feedback(self, days: int, before: int | None = None, limit: int = 50) -> Page: ...
    async def unanswered(self, days: int, before: int | None = None, limit: int = 50) -> Page: ...
    async def chats(self, after: str | None = None, limit: int = 50) -> Page: ...


class Percentiles(BaseModel):
    p50: int | None = Field(description="milliseconds; null without answers")
    p95: int | None


class StatsOut(BaseModel):
    days: int
    since: str = Field(description="start of the window (midnight UTC)")
    messages: int = Field(description="questions addressed to Fuzi (group chatter not counted)")
    people: int
    chats: dict[str, int] = Field(description="chats with a question, by platform")
    levels: dict[str, int] = Field(description="answers by level: agent, degraded, texts_only")
    refusals: dict[str, Any] = Field(description="guard, limits, and by_reason (the stored status)")
    latency_ms: dict[str, Percentiles] = Field(description="first_visible and final")
    tokens: dict[str, dict[str, int]] = Field(description="by model: prompt, completion")
    feedback: dict[str, int] = Field(description="up, down")
    per_day: list[dict[str, Any]] = Field(description="day, messages, agent, degraded, texts_only, up, down")


class Passage(BaseModel):
    n: int | None = None
    id: str | None = None
    ref: str | None = None


class FeedbackItem(BaseModel):
    id: int
    time: str
    platform: str
    verdict: Literal["up", "down"]
    emoji: str
    chat: str
    question: str
    answer: str
    level: int | None
    passages: list[Passage]
    trace_id: str


class FeedbackPage(BaseModel):
    items: list[FeedbackItem]
    next: int | None = Field(description="pass as `before` for the next page; null: the last page")


class UnansweredItem(BaseModel):
    id: int
    time: str
    platform: str
    chat: str
    question: str
    level: str = Field(description="agent, degraded or texts_only")
    passages_cited: int
    trace_id: str


class UnansweredPage(BaseModel):
    items: list[UnansweredItem]
    next: int | None = Field(description="pass as `before` for the next page; null: the last page")


class ChatItem(BaseModel):
    chat: str
    platform: str
    group: bool
    skill: str
    script: str
    daily: str
    digest: bool
    model: str
    since: str


class ChatsPage(BaseModel):
    items: list[ChatItem]
    next: str | None = Field(description="pass as `after` for the next page; null: the last page")


def operator_dependency(auth: Authenticator):
    """The FastAPI dependency: the operator's name, or 401 / 403."""

    async def operator(request: Request, _bearer: HTTPAuthorizationCredentials | None = _BEARER_DEP) -> str:
        try:
            user, allowed = await auth.operator(request.headers.get("authorization"))
        except Unauthorized as exc:
            raise HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"}) from None
        if not allowed:
            raise HTTPException(403, "the operator console needs an operator token (fuzi token create --admin)")
        return user

    return Depends(operator)


def add_admin_routes(app: FastAPI, auth: Authenticator, data: Operators) -> None:
    """The admin API and the /admin page on `app`."""
    who = operator_dependency(auth)
    days_q = Query(30, ge=1, le=DAYS_MAX, description="the last N days, today included (1–365)")
    limit_q = Query(50, ge=1, le=PAGE_MAX)
    format_q = Query("json", description="csv: the whole list, streamed")
    responses: dict[int | str, dict[str, Any]] = {**errors(*API, 422), **_FORBIDDEN}

    @app.get("/v1/admin/stats", response_model=StatsOut, tags=["admin"], responses=responses)
    async def stats(days: int = days_q, _op: str = who):
        """How Fuzi is used: messages, people, chats, answers by level, refusals, latency, tokens, verdicts."""
        return await data.stats(days)

    async def feedback_list(days: int, before: int | None, limit: int, fmt: Format):
        if fmt == "csv":
            return _csv("feedback", FeedbackItem, lambda cursor: data.feedback(days, cursor, CSV_PAGE))
        page = await data.feedback(days, before, limit)
        return {"items": page.items, "next": page.next}

    async def unanswered_list(days: int, before: int | None, limit: int, fmt: Format):
        if fmt == "csv":
            return _csv("unanswered", UnansweredItem, lambda cursor: data.unanswered(days, cursor, CSV_PAGE))
        page = await data.unanswered(days, before, limit)
        return {"items": page.items, "next": page.next}

    async def chat_list(after: str | None, limit: int, fmt: Format):
        if fmt == "csv":
            return _csv("chats", ChatItem, lambda cursor: data.chats(cursor, CSV_PAGE))
        page = await data.chats(after, limit)
        return {"items": page.items, "next": page.next}

    before_q = Query(None, ge=1, le=2**63 - 1, description="the `next` of the previous page")
    list_responses = {**responses, **_CSV}

    @app.get("/v1/admin/feedback", response_model=FeedbackPage, tags=["admin"], responses=list_responses)
    async def feedback(
        days: int = days_q, before: int | None = before_q, limit: int = limit_q, format: Format = format_q, _op=who
    ):
        """Verdicts, newest first: question, answer, cited passages, verdict, platform, time."""
        return await feedback_list(days, before, limit, format)

    @app.get("/v1/admin/feedback.csv", tags=["admin"], responses=list_responses, response_class=StreamingResponse)
    async def feedback_csv(days: int = days_q, _op: str = who):
        """Every verdict of the window as CSV."""
        return await feedback_list(days, None, CSV_PAGE, "csv")

    @app.get("/v1/admin/unanswered", response_model=UnansweredPage, tags=["admin"], responses=list_responses)
    async def unanswered(
        days: int = days_q, before: int | None = before_q, limit: int = limit_q, format: Format = format_q, _op=who
    ):
        """Questions answered from the texts alone or citing no passage: what the books may not hold."""
        return await unanswered_list(days, before, limit, format)

    @app.get("/v1/admin/unanswered.csv", tags=["admin"], responses=list_responses, response_class=StreamingResponse)
    async def unanswered_csv(days: int = days_q, _op: str = who):
        """Every unanswered question of the window as CSV."""
        return await unanswered_list(days, None, CSV_PAGE, "csv")

    after_q = Query(None, max_length=200, description="the `next` of the previous page")

    @app.get("/v1/admin/chats", response_model=ChatsPage, tags=["admin"], responses=list_responses)
    async def chats(after: str | None = after_q, limit: int = limit_q, format: Format = format_q, _op: str = who):
        """Every chat with its settings (skill, script, daily, digest, model), by key."""
        return await chat_list(after, limit, format)

    @app.get("/v1/admin/chats.csv", tags=["admin"], responses=list_responses, response_class=StreamingResponse)
    async def chats_csv(_op: str = who):
        """Every chat with its settings as CSV."""
        return await chat_list(None, CSV_PAGE, "csv")

    static = files("adapters.web") / "static"

    @app.get("/admin", response_class=HTMLResponse, include_in_schema=False)
    async def page():
        """The console page; it asks the API above, which checks the role (the page holds no data)."""
        return HTMLResponse(static.joinpath("admin.html").read_text("utf-8"), headers={"Cache-Control": "no-cache"})


def _csv(name: str, item: type[BaseModel], fetch: Callable[[Any], Awaitable[Page]]) -> StreamingResponse:
    """The whole list as CSV, one database page at a time."""
    columns = list(item.model_fields)

    async def rows() -> AsyncIterator[str]:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(columns)
        cursor: Any = None
        while True:
            page = await fetch(cursor)
            for entry in page.items:
                writer.writerow([csv_cell(entry.get(c)) for c in columns])
            yield out.getvalue()
            out.seek(0)
            out.truncate()
            if page.next is None:
                return
            cursor = page.next

    headers = {"Content-Disposition": f'attachment; filename="fuzi-{name}.csv"'}
    return StreamingResponse(rows(), media_type="text/csv; charset=utf-8", headers=headers)
