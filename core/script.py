"""Simplified and Traditional Chinese: which one a reader wants, and the conversion (OpenCC).

OpenCC (the official `opencc` binding: a compiled library, phrase-level dictionaries) converts the
answer into Traditional when the chat set `script traditional`, or — with no setting (`auto`) —
when the person's own message is clearly written in Traditional. The standard OpenCC Traditional
(`s2t`) is used rather than a regional variant: the classics are quoted in their standard forms.

Only what Fuzi says is converted: streamed text, the final answer and its citations (the passage
text and the reference; the passage ids stay the same). Command replies and notices stay as they are.
A streamed delta is converted on its own (a phrase split across two deltas may be converted
character by character); the final text, converted whole, replaces the streamed one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from core.events import Citation, FinalReply, ReplyEvent, TextDelta
from core.ports import PassageSearch, SearchHit, SearchHits

Script = Literal["simplified", "traditional"]
_HAN = re.compile(r"[\u3400-\u9fff]")


class ScriptConverter:
    """Both directions of OpenCC, built once (bot/wiring) and shared.

    Args:
        to_traditional: the OpenCC configuration for Simplified → Traditional (`s2t`, or `s2tw`,
            `s2hk`, `s2twp` for regional forms).
    """

    def __init__(self, to_traditional: str = "s2t"):
        import opencc  # the binding loads its dictionaries at construction

        self._s2t = opencc.OpenCC(f"{to_traditional}.json")
        self._t2s = opencc.OpenCC("t2s.json")

    def traditional(self, text: str) -> str:
        """`text` in Traditional characters."""
        return self._s2t.convert(text) if text else text

    def simplified(self, text: str) -> str:
        """`text` in Simplified characters (e.g. a Traditional query before searching the corpus)."""
        return self._t2s.convert(text) if text else text

    def is_traditional(self, text: str) -> bool:
        """True when `text` is clearly written in Traditional: it has characters that only exist in
        Traditional (they change under Traditional → Simplified) — at least two, or one in a very short
        message — and at least three times as many as Simplified-only characters."""
        sample = text[:2000]
        han = len(_HAN.findall(sample))
        if not han:
            return False
        trad = _differing(sample, self.simplified(sample))
        simp = _differing(sample, self.traditional(sample))
        return trad >= 3 * simp and (trad >= 2 or (trad == 1 and han <= 6))

    def reply_script(self, chosen: Script | None, text: str) -> Script:
        """The script of the answer: the chat's choice, else the script the person wrote in."""
        if chosen is not None:
            return chosen
        return "traditional" if self.is_traditional(text) else "simplified"

    def event(self, event: ReplyEvent, script: Script) -> ReplyEvent:
        """The event as the reader should see it (only answer text and citations change)."""
        if script == "simplified":
            return event
        if isinstance(event, TextDelta):
            return TextDelta(self.traditional(event.text))
        if isinstance(event, FinalReply):
            cites = tuple(self.citation(c) for c in event.citations)
            return replace(event, text=self.traditional(event.text), citations=cites)
        return event

    def citation(self, citation: Citation) -> Citation:
        """A citation in Traditional: text and reference converted, the passage id kept."""
        return replace(citation, text=self.traditional(citation.text), ref=self.traditional(citation.ref))


def _differing(a: str, b: str) -> int:
    """How many Han characters differ between `a` and its conversion `b` (same length, or compared by position)."""
    return sum(1 for x, y in zip(a, b) if x != y and _HAN.match(x))


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
