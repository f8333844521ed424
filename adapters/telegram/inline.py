"""Telegram inline mode: `@FuziBot 学而` in any chat answers up to 10 cited passages (retrieval only).

Each result is an article: the reference as its title, the start of the text as its description;
choosing it sends the passage with its citation. An empty or emoji-only query, a person over their
look-up limit, or nothing found: one result carrying the hint. Telegram caches real results for
`INLINE_CACHE_S` (shared by everyone typing the same words); hints are cached briefly and per person.
Inline mode must be switched on with @BotFather (`/setinline`; docs/telegram.md).
"""

from __future__ import annotations

import time

import structlog
from telegram import InlineQuery, InlineQueryResultArticle, InputTextMessageContent
from telegram.error import TelegramError

from core.ports import Engine, LookupResult
from core.types import Passage

log = structlog.get_logger(__name__)

INLINE_RESULTS = 10
INLINE_CACHE_S = 300
HINT_CACHE_S = 5
_DESCRIPTION_CHARS = 120


def _article(p: Passage) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=p.id[:64],
        title=p.ref,
        description=p.text[:_DESCRIPTION_CHARS],
        input_message_content=InputTextMessageContent(f"{p.text}\n—— {p.ref}"[:4096]),
    )


def _hint(text: str) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(id="hint", title=text, input_message_content=InputTextMessageContent(text))


async def answer_inline(engine: Engine, query: InlineQuery) -> None:
    """Look the query up and answer it; a query Telegram no longer accepts is logged and dropped."""
    started = time.perf_counter()
    result: LookupResult = await engine.look_up("telegram", str(query.from_user.id), query.query, INLINE_RESULTS)
    found = bool(result.passages)
    results = [_article(p) for p in result.passages] if found else [_hint(result.hint or "…")]
    try:
        await query.answer(results, cache_time=INLINE_CACHE_S if found else HINT_CACHE_S, is_personal=not found)
    except TelegramError as exc:  # too old (the person typed on), or gone
        log.info("inline_not_answered", error=type(exc).__name__)
        return
    log.info(
        "inline_answered",
        results=len(result.passages),
        limited=result.limited,
        ms=round((time.perf_counter() - started) * 1000, 1),
    )
