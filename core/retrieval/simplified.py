"""A passage search that takes queries in either script (the corpus is stored in Simplified)."""

from __future__ import annotations

from collections.abc import Sequence

from core.language.script import ScriptConverter
from core.ports import PassageSearch, SearchHit, SearchHits


class SimplifiedQueries:
    """A passage search that first converts the query to Simplified: the corpus is Simplified, so a
    reader's Traditional question (學而時習之) must find the same passages as 学而时习之.

    Quotes and ids go to the inner search as they are (the quote finder sets the script aside itself).
    """

    def __init__(self, inner: PassageSearch, scripts: ScriptConverter):
        self._inner = inner
        self._scripts = scripts

    async def search(self, query: str, *, k: int = 5, corpus: str = "all") -> SearchHits:
        return await self._inner.search(self._scripts.simplified(query), k=k, corpus=corpus)

    async def find_quote(self, text: str, *, k: int = 5) -> tuple[Sequence[SearchHit], bool]:
        return await self._inner.find_quote(text, k=k)

    async def get(self, passage_id: str) -> SearchHit | None:
        return await self._inner.get(passage_id)

    async def neighbours(self, passage_id: str, n: int = 1) -> Sequence[SearchHit]:
        return await self._inner.neighbours(passage_id, n)
