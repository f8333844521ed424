"""The reading room's API and page: the books chapter by chapter, each person's position and bookmarks.

Sign-in is the web's (bearer token or local mode) or a Telegram Mini App's (``Authorization: tma
<initData>``, adapters/web/tma.py); either way the reader is a person of the identity table, so a
Telegram user's position and bookmarks are their own in every chat and linked account. Texts come
in the reader's script (``?script=traditional`` converts with OpenCC) and with the modern-Chinese
and English glosses on request (``?gloss=true``). A chapter's answer is built once per script and
gloss choice and then served from memory.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import Enum
from functools import lru_cache
from importlib.resources import files
from typing import Literal, NoReturn, Protocol

import structlog
from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request, Security
from fastapi.responses import HTMLResponse
from fastapi.security import HTTPAuthorizationCredentials
from fastapi.security.http import HTTPBase
from pydantic import BaseModel, Field

from adapters.web.auth import Authenticator, Unauthorized
from adapters.web.errors import API, CHANGE, errors
from adapters.web.tma import TMA_MAX_AGE_S, InitDataRefused, check_init_data
from core.reading.shelf import Book, Shelf

log = structlog.get_logger(__name__)

Script = Literal["simplified", "traditional"]
PASSAGE_ID = Path(max_length=64, pattern=r"^[a-z]{1,16}:[0-9.]{1,16}$", examples=["lunyu:1.1"])
_TMA = HTTPBase(
    scheme="tma",
    auto_error=False,
    description="a Telegram Mini App's raw init data: `Authorization: tma <Telegram.WebApp.initData>`",
)
_TMA_DEP = Security(_TMA)
_SCRIPT_QUERY = Query("simplified", description="the reader's script")


class ChapterIn(BaseModel):
    n: int
    title: str
    passages: int = Field(description="how many passages the chapter holds")


class BookOut(BaseModel):
    id: str
    title: str
    english: str
    chapters: list[ChapterIn]


class BooksOut(BaseModel):
    books: list[BookOut]


class ReadPassage(BaseModel):
    id: str
    ref: str
    text: str
    gloss_zh: str | None = Field(None, description="modern Chinese, with ?gloss=true, where the passage has one")
    gloss_en: str | None = Field(None, description="English, with ?gloss=true, where the passage has one")


class ChapterOut(BaseModel):
    book: str
    chapter: int
    title: str
    chapters: int = Field(description="how many chapters the book has")
    script: Script
    passages: list[ReadPassage]


class PositionIn(BaseModel):
    passage_id: str = Field(max_length=64, examples=["lunyu:1.3"])


class PositionOut(BaseModel):
    passage_id: str | None
    book: str | None = None
    chapter: int | None = None


class BookmarkOut(BaseModel):
    id: str
    ref: str
    book: str
    chapter: int
    created_at: datetime | None = None


class BookmarksOut(BaseModel):
    bookmarks: list[BookmarkOut]


class Reader(Protocol):
    """Where positions and bookmarks live (core.storage.reading.ReadingRepo)."""

    async def position(self, person_id: int) -> str | None: ...
    async def set_position(self, person_id: int, passage_id: str) -> None: ...
    async def bookmarks(self, person_id: int) -> list[tuple[str, datetime]]: ...
    async def add_bookmark(self, person_id: int, passage_id: str) -> bool: ...
    async def remove_bookmark(self, person_id: int, passage_id: str) -> None: ...


class People(Protocol):
    """The identity table (core.storage.repos.IdentityRepo)."""

    async def resolve(self, platform: str, user_id: str, display_name: str = "") -> int: ...


class Glosses(Protocol):
    def get(self, passage_id: str, /) -> object | None: ...


class ReadingRoom:
    """The reading room over one shelf.

    Args:
        shelf: the present books.
        store: positions and bookmarks.
        people: the identity table (account → person).
        auth: the web's authenticator (bearer or local).
        traditional: Simplified → Traditional (OpenCC); None: Traditional is refused with 422.
        glosses: passage id → gloss (``en``, ``zh``).
        bot_token: the Telegram bot's token (Mini App sign-in); None: ``tma`` is refused.
        tma_max_age_s: the oldest ``auth_date`` accepted.
    """

    def __init__(
        self,
        shelf: Shelf,
        store: Reader,
        people: People,
        auth: Authenticator,
        *,
        traditional: Callable[[str], str] | None = None,
        glosses: Glosses | None = None,
        bot_token: str | None = None,
        tma_max_age_s: int = TMA_MAX_AGE_S,
    ):
        self.shelf, self.store, self.people, self.auth = shelf, store, people, auth
        self.traditional, self.glosses = traditional, glosses or {}
        self.bot_token, self.tma_max_age_s = bot_token, tma_max_age_s
        self.chapter = lru_cache(maxsize=512)(self._chapter)

    # ------------------------------------------------------------------ who
    async def person(self, request: Request) -> int:
        """The reader's person id: a Mini App's Telegram user, else the web person; 400/401 otherwise."""
        header = request.headers.get("authorization") or ""
        scheme, _, data = header.partition(" ")
        if scheme.lower() == "tma":
            token = self.bot_token or _refuse(401, "Telegram sign-in is not set up on this server")
            try:
                user = check_init_data(data.strip(), token, max_age_s=self.tma_max_age_s)
            except InitDataRefused as exc:
                _refuse(exc.status, str(exc))
            return await self.people.resolve("telegram", str(user.id))
        try:
            web_user = await self.auth.authenticate(header or None)
        except Unauthorized as exc:
            raise HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"}) from None
        return await self.people.resolve("web", web_user, web_user)

    # ------------------------------------------------------------------ books
    def books(self, script: Script = "simplified") -> BooksOut:
        return BooksOut(books=[_book_out(b, self._converter(script)) for b in self.shelf.books])

    def _chapter(self, book_id: str, n: int, script: Script, gloss: bool) -> ChapterOut:
        book = self._book(book_id)
        chapter = book.chapter(n)
        if chapter is None:
            raise HTTPException(404, f"no chapter {n} in {book_id}: chapters 1–{len(book.chapters)}")
        convert = self._converter(script)
        passages = []
        for pid in chapter.ids:
            p = self.shelf.passage(pid)
            assert p is not None, "a chapter lists only shelved passages"
            g = self.glosses.get(pid) if gloss else None
            zh, en = (getattr(g, "zh", None), getattr(g, "en", None)) if g is not None else (None, None)
            passages.append(
                ReadPassage(id=pid, ref=convert(p.ref), text=convert(p.text), gloss_zh=zh and convert(zh), gloss_en=en)
            )
        title = convert(chapter.title)
        return ChapterOut(
            book=book.id, chapter=n, title=title, chapters=len(book.chapters), script=script, passages=passages
        )

    def _book(self, book_id: str) -> Book:
        book = self.shelf.book(book_id)
        if book is None:
            known = ", ".join(b.id for b in self.shelf.books) or "none"
            raise HTTPException(404, f"no book {book_id!r}: the books are {known}")
        return book

    def _converter(self, script: Script) -> Callable[[str], str]:
        if script == "simplified":
            return lambda text: text
        if self.traditional is None:
            raise HTTPException(422, "Traditional script is not available on this server")
        return self.traditional

    # ------------------------------------------------------------------ the person's
    def _known(self, passage_id: str) -> tuple[str, int]:
        place = self.shelf.place(passage_id)
        if place is None:
            raise HTTPException(404, f"no passage {passage_id!r} in the reading room")
        return place

    async def position(self, person: int) -> PositionOut:
        pid = await self.store.position(person)
        place = self.shelf.place(pid) if pid else None
        if pid is None or place is None:  # a book no longer on the shelf: start afresh
            return PositionOut(passage_id=None)
        return PositionOut(passage_id=pid, book=place[0], chapter=place[1])

    async def set_position(self, person: int, body: PositionIn) -> PositionOut:
        book, n = self._known(body.passage_id)
        await self.store.set_position(person, body.passage_id)
        return PositionOut(passage_id=body.passage_id, book=book, chapter=n)

    async def bookmarks(self, person: int) -> BookmarksOut:
        marks = [self._mark(pid, at) for pid, at in await self.store.bookmarks(person) if pid in self.shelf]
        return BookmarksOut(bookmarks=marks)

    async def add_bookmark(self, person: int, passage_id: str) -> BookmarkOut:
        self._known(passage_id)
        if not await self.store.add_bookmark(person, passage_id):
            raise HTTPException(409, "too many bookmarks; remove some first")
        return self._mark(passage_id, None)

    async def remove_bookmark(self, person: int, passage_id: str) -> BookmarkOut:
        self._known(passage_id)
        await self.store.remove_bookmark(person, passage_id)
        return self._mark(passage_id, None)

    def _mark(self, passage_id: str, at: datetime | None) -> BookmarkOut:
        passage, (book, n) = self.shelf.passage(passage_id), self._known(passage_id)
        return BookmarkOut(
            id=passage_id, ref=passage.ref if passage else passage_id, book=book, chapter=n, created_at=at
        )


def _refuse(status: int, reason: str) -> NoReturn:
    log.info("web_tma_refused", reason=reason, status=status)
    raise HTTPException(status, reason, headers={"WWW-Authenticate": "tma"} if status == 401 else None)


def _book_out(book: Book, convert: Callable[[str], str]) -> BookOut:
    chapters = [ChapterIn(n=c.n, title=convert(c.title), passages=len(c.ids)) for c in book.chapters]
    return BookOut(id=book.id, title=convert(book.name), english=book.english, chapters=chapters)


def add_reading_routes(app: FastAPI, room: ReadingRoom, bearer: object) -> None:
    """The `/v1/books` and `/v1/me/...` routes and the `/read` page. ``bearer`` is the app's bearer
    `Security` (declares the scheme); the tma scheme is declared beside it."""

    async def who(request: Request, _b: HTTPAuthorizationCredentials | None = bearer, _t=_TMA_DEP) -> int:  # type: ignore[assignment]
        return await room.person(request)

    person = Depends(who)
    book_id = Path(pattern=r"^[a-z]{1,32}$", examples=["lunyu"])
    tags: list[str | Enum] = ["reading"]

    @app.get("/v1/books", response_model=BooksOut, tags=tags, responses=errors(*API, 422))
    async def books(script: Script = _SCRIPT_QUERY, _p: int = person):
        """The books on the shelf, their chapters and how many passages each holds."""
        return room.books(script)

    @app.get("/v1/books/{book}/chapters/{n}", response_model=ChapterOut, tags=tags, responses=errors(*API, 404, 422))
    async def chapter(
        book: str = book_id,
        n: int = Path(ge=1, le=10_000, description="the chapter's number in the book (1..)"),
        script: Script = _SCRIPT_QUERY,
        gloss: bool = Query(False, description="add the modern-Chinese and English glosses"),
        _p: int = person,
    ):
        """A chapter's passages in order; 404 (naming the books or the chapter range) for an unknown one."""
        return room.chapter(book, n, script, gloss)

    @app.get("/v1/me/position", response_model=PositionOut, tags=tags, responses=errors(*API))
    async def position(p: int = person):
        """Where the person stopped reading (``passage_id`` null: nowhere yet)."""
        return await room.position(p)

    @app.put("/v1/me/position", response_model=PositionOut, tags=tags, responses=errors(*CHANGE, 404, 422))
    async def set_position(body: PositionIn, p: int = person):
        """Remember the passage the person is reading; 404 for an id the reading room does not hold."""
        return await room.set_position(p, body)

    @app.get("/v1/me/bookmarks", response_model=BookmarksOut, tags=tags, responses=errors(*API))
    async def bookmarks(p: int = person):
        """The person's bookmarks, oldest first."""
        return await room.bookmarks(p)

    @app.put(
        "/v1/me/bookmarks/{passage_id}", response_model=BookmarkOut, tags=tags, responses=errors(*CHANGE, 404, 409, 422)
    )
    async def add_bookmark(passage_id: str = PASSAGE_ID, p: int = person):
        """Bookmark a passage (idempotent); 404 for an unknown passage, 409 over the limit."""
        return await room.add_bookmark(p, passage_id)

    @app.delete(
        "/v1/me/bookmarks/{passage_id}", response_model=BookmarkOut, tags=tags, responses=errors(*CHANGE, 404, 422)
    )
    async def remove_bookmark(passage_id: str = PASSAGE_ID, p: int = person):
        """Remove a bookmark (idempotent); 404 for an unknown passage."""
        return await room.remove_bookmark(p, passage_id)

    static = files("adapters.web") / "static"

    @app.get("/read", response_class=HTMLResponse, include_in_schema=False)
    async def page():
        return HTMLResponse(static.joinpath("read.html").read_text("utf-8"), headers={"Cache-Control": "no-cache"})
