"""Query translation through the LLM: an English or modern-Chinese question → classical-Chinese key
phrases, searched as one more fused route.

The corpus is classical Chinese; the small embedder bridges English and modern Chinese to it poorly,
and the glossary only knows the words on its list. When an LLM is configured, `QueryTranslator`
asks it once per distinct question for the classical wording a passage would use (the original line
when the model knows it, names, titles); the retriever runs the keyword route on that wording and
fuses it with the other routes. It goes through the same LLM port as every other call (the breaker
and the reply's budget apply), has its own short timeout, and caches answers. Any failure — no
LLM, an open breaker, a timeout, an empty answer — gives no translation, and the search is what it
is without one (the offline routes still run; nothing waits for a translation that is not coming).

Two cases never ask the model: a breaker that is not closed (a translation cut at its short timeout
must not be the half-open probe, whose loss would re-open the breaker for everyone), and searches
run under :func:`offline` (look-ups: inline queries fire per keystroke and are retrieval alone).
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import structlog

from core.language.text import has_cjk
from core.llm.types import LLM
from core.retrieval.fusion import query_language
from core.retrieval.keyword import is_modern_question

log = structlog.get_logger(__name__)

TIMEOUT_S = 2.0  # a translation later than this is not waited for
MAX_TOKENS = 80
MAX_CHARS = 60  # of the answer kept (key phrases, not an essay)
CACHE_SIZE = 1024

PROMPT = """The Four Books (论语, 孟子, 大学, 中庸) and the Book of Songs (诗经) are written in classical Chinese. A reader asks:

{query}

Write the classical-Chinese words a passage answering this would contain: the original line if you \
know it, the names of the people or the poem's title, the key characters. Simplified characters, \
separated by spaces, at most 30 characters, nothing else."""

_OFFLINE: ContextVar[bool] = ContextVar("fuzi_search_offline", default=False)


@contextmanager
def offline() -> Iterator[None]:
    """Searches inside the block get no translation (no LLM call), whatever the retriever is given."""
    token = _OFFLINE.set(True)
    try:
        yield
    finally:
        _OFFLINE.reset(token)


_NOT_CJK = re.compile(r"[^\u3400-\u9fff\uf900-\ufaff\s]+")


def wants_translation(query: str) -> bool:
    """English questions and modern-Chinese questions; classical quotes and names already match."""
    language = query_language(query)
    return language == "en" or (language == "zh" and is_modern_question(query))


def clean(answer: str) -> str:
    """The CJK words of the model's answer (punctuation, Latin and numbering dropped), cut short."""
    words = _NOT_CJK.sub(" ", answer).split()
    return " ".join(words)[:MAX_CHARS].strip()


class QueryTranslator:
    """Classical-Chinese key phrases for a question, from an LLM, cached.

    Args:
        llm: anything implementing core.llm.types.LLM (in the app: the breaker-wrapped client).
        timeout_s: the longest wait for one answer.
        cache_size: distinct questions whose translation is kept (failures are not cached).
    """

    name = "llm"

    def __init__(self, llm: LLM, *, timeout_s: float = TIMEOUT_S, cache_size: int = CACHE_SIZE):
        self._llm = llm
        self._timeout_s = timeout_s
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._cache_size = cache_size

    async def translate(self, query: str, *, timeout_s: float | None = None) -> str:
        """The key phrases, or "" when there are none (not a question for it, or any failure)."""
        key = " ".join(query.split())
        if not key or not wants_translation(key):
            return ""
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        if _OFFLINE.get() or getattr(self._llm, "state", None) not in (None, "closed"):
            return ""  # a look-up, or a breaker open or waiting for its probe (module docstring)
        limit = self._timeout_s if timeout_s is None else min(self._timeout_s, timeout_s)
        try:
            completion = await asyncio.wait_for(
                self._llm.complete(
                    [{"role": "user", "content": PROMPT.format(query=key)}], temperature=0.0, max_tokens=MAX_TOKENS
                ),
                timeout=max(0.0, limit),
            )
        except (TimeoutError, Exception) as exc:  # noqa: BLE001 - no translation is a normal outcome
            log.warning("query_translation_failed", reason=type(exc).__name__)
            return ""
        text = clean(completion.text or "")
        if not has_cjk(text):
            log.warning("query_translation_empty")
            return ""
        self._cache[key] = text
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return text
