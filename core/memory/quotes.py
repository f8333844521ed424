"""Quoted messages as context: what a person replied to ("他这么理解对吗？") reaches the model as data.

Adapters fill `Incoming.quoted` (Telegram `reply_to_message` / `quote` / `external_reply`, Discord
message references); here each quote is

* clipped to `QUOTE_MAX_CHARS` characters (the rest marked as cut), at most `QUOTE_CHAIN_DEPTH` of them;
* screened by the same local input check as a message: a quote that reads as an injection is not
  shown to the model at all (a one-line note takes its place), and it is never a reason to refuse
  the person who asked — they did not write it;
* put before the person's words inside a `<quoted>` block (core/memory/blocks.py `quoted_block`),
  which the hardening rules name as data;
* stored with the question, as screened (`dump_quotes` → `message.quoted`), so the chat window
  carries it into the follow-ups ("那他说得对吗？") and the summary folds it in as what was quoted
  (`load_quotes` reads it back). It is never a fact or a profile: the quoted author's words never
  reach anyone's long-term memory.

The quoted author is only a display name: their memory and profile are never looked up.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, replace
from typing import get_args

import structlog

from core.ports import Guard
from core.types import Quote, QuoteSource

log = structlog.get_logger(__name__)

QUOTE_MAX_CHARS = 600
"""How much of one quoted message reaches the prompt."""
QUOTE_CHAIN_DEPTH = 3
"""How many messages up a reply chain are followed, where the platform gives them (Discord)."""
WITHHELD = (
    "（此引文读来像是给机器人的指令，已略去。The quoted message read like instructions to a bot and was left out.）"
)
NON_TEXT = "（非文字消息，如图片或贴纸 a non-text message, e.g. a photo or sticker）"
_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def clip(text: str, limit: int = QUOTE_MAX_CHARS) -> str:
    """`text` cut to `limit` characters, with a mark saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…〔引文截断 quote cut: {len(text)} chars〕"


def screen_quotes(quotes: tuple[Quote, ...], guard: Guard) -> tuple[Quote, ...]:
    """The quotes fit for the prompt: nearest `QUOTE_CHAIN_DEPTH`, clipped, injections withheld."""
    kept = []
    for quote in sorted(quotes, key=lambda q: q.depth)[:QUOTE_CHAIN_DEPTH]:
        text = clip(_UNSAFE.sub("\ufffd", quote.text).strip())
        if text:
            verdict = guard.check_input(text)
            if verdict.refusal is not None and verdict.reason == "injection":
                log.info("quote_withheld", depth=quote.depth, source=quote.source, chars=len(quote.text))
                text = WITHHELD
            elif verdict.text.strip():
                text = verdict.text
        kept.append(replace(quote, text=text or NON_TEXT, author=_UNSAFE.sub("\ufffd", quote.author)))
    return tuple(kept)


def dump_quotes(quotes: tuple[Quote, ...]) -> str | None:
    """Screened quotes as the JSON stored with the question (`message.quoted`); None when there are none."""
    if not quotes:
        return None
    return json.dumps([asdict(q) for q in quotes], ensure_ascii=False)


def load_quotes(data: str | None) -> tuple[Quote, ...]:
    """The quotes stored with a question; a value this code did not write reads as none."""
    try:
        items = json.loads(data) if data else []
    except ValueError:
        return ()
    if not isinstance(items, list):
        return ()
    return tuple(quote for item in items if (quote := _quote(item)) is not None)


def _quote(item: object) -> Quote | None:
    if not isinstance(item, dict) or not isinstance(text := item.get("text"), str):
        return None
    source = item.get("source")
    depth = item.get("depth")
    return Quote(
        text=text,
        author=str(item.get("author") or ""),
        from_bot=item.get("from_bot") is True,
        depth=depth if isinstance(depth, int) and not isinstance(depth, bool) and depth > 0 else 1,
        source=source if source in _SOURCES else "reply",
    )


_SOURCES: tuple[QuoteSource, ...] = get_args(QuoteSource)
