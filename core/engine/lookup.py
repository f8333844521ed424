"""Passage look-ups without the language model: Telegram inline mode (`@bot 学而`) and Discord `/passage`.

Retrieval alone, cited: up to `k` passages (id, human reference, text), in the reader's script (a
query written in Traditional gets Traditional results; it is searched in Simplified, as the corpus
is). An empty, emoji- or punctuation-only query gets a hint instead of a search. Each person has
their own limit (`LOOKUP_LIMITS`, e.g. inline queries fired at 10/s while typing): over it, a
"slow down" hint, and no search is run.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import TYPE_CHECKING

import structlog

from core.failopen import FailOpen
from core.language.script import ScriptConverter
from core.ports import LookupResult, PassageSearch
from core.retrieval.documents import is_passage_id
from core.retrieval.translate import offline
from core.types import Passage

if TYPE_CHECKING:
    from limits import RateLimitItem
    from limits.aio.storage import Storage
    from limits.aio.strategies import MovingWindowRateLimiter

log = structlog.get_logger(__name__)

LOOKUP_LIMITS = "20/10second;300/hour"
"""Per person: typing an inline query sends one per keystroke, so short bursts are allowed."""
MAX_QUERY_CHARS = 100
HINT = "输入想查的字句，如「学而」「关雎」「民为贵」。Type words to look up, e.g. 学而, 关雎 or 民为贵."
SLOW_DOWN = "查得太快了，稍候片刻再查。Too many look-ups; wait a moment."
NOTHING = "典籍中未检得相近的章句。Nothing close in the texts."
_WORDS = re.compile(r"\w")


class PassageLookup:
    """Retrieval-only look-ups with per-person limits.

    Args:
        search: the passage search (the hybrid retriever); its `get(id)` answers an id.
        scripts: Simplified/Traditional conversion.
        limits: where the per-person counters live (default in memory; bot/ hands in the Redis storage
            that shares them between replicas). The `limits` library is imported at the first look-up
            (~20 ms of a start that may never see one).
    """

    def __init__(self, search: PassageSearch, scripts: ScriptConverter, *, limits: Storage | None = None):
        self._search = search
        self._scripts = scripts
        self._storage = limits
        self._health = FailOpen("lookup_limit", policy="look-ups served unlimited")

    async def lookup(self, query: str, *, account: str, k: int = 10) -> LookupResult:
        """Up to `k` passages for `query`, for the person `account` (`platform:user_id`)."""
        q = " ".join(query.split())[:MAX_QUERY_CHARS]
        if not _WORDS.search(q):
            return LookupResult(hint=HINT)
        if not await self._allowed(account):
            log.info("lookup_limited", account=account)
            return LookupResult(hint=SLOW_DOWN, limited=True)
        traditional = self._scripts.is_traditional(q)
        passages = await self._by_id(q) or await self._searched(q, k)
        if traditional:
            passages = [self._traditional(p) for p in passages]
        return LookupResult(tuple(passages)) if passages else LookupResult(hint=NOTHING)

    @functools.cached_property
    def _limiter(self) -> tuple[list[RateLimitItem], MovingWindowRateLimiter]:
        from limits import parse_many
        from limits.aio.storage import MemoryStorage
        from limits.aio.strategies import MovingWindowRateLimiter

        storage = self._storage if self._storage is not None else MemoryStorage()
        return parse_many(LOOKUP_LIMITS), MovingWindowRateLimiter(storage)

    async def _allowed(self, account: str) -> bool:
        limits, limiter = self._limiter
        try:
            for limit in limits:  # in order, stopping at the first refusal (as `all` over the hits did)
                if not await limiter.hit(limit, "fuzi-lookup", account):
                    self._health.answered()
                    return False
        except Exception as exc:  # a limits store that is down fails open: a look-up is cheap
            self._health.failed(exc)
            return True
        self._health.answered()
        return True

    async def _searched(self, query: str, k: int) -> list[Passage]:
        with offline():  # retrieval alone: no LLM call per keystroke of an inline query
            hits = await self._search.search(self._scripts.simplified(query), k=k)
        return [Passage(id=h.id, ref=h.ref, corpus="", title="", text=h.text) for h in hits.results[:k]]

    async def _by_id(self, query: str) -> list[Passage]:
        """An exact passage id (Discord autocomplete hands back the chosen id)."""
        if not is_passage_id(query):
            return []
        found = await self._search.get(query)
        return [Passage(id=found.id, ref=found.ref, corpus="", title="", text=found.text)] if found is not None else []

    def _traditional(self, p: Passage) -> Passage:
        return replace(p, ref=self._scripts.traditional(p.ref), text=self._scripts.traditional(p.text))
