"""Where the other books quote the Book of Songs: 《诗》云「经始灵台，经之营之」 in 《孟子·梁惠王上》
links to 《诗经·大雅·文王之什·灵台》, so a reader who asks where Mencius used a line finds both.

A quotation is the text in quotation marks after 《诗》云 / 《诗》曰 / 诗云 / 诗曰. It is linked to the
poem that holds most of its clauses word for word (after squashing: punctuation, script and variant
characters set aside); a quotation none of whose clauses of three or more characters is in any poem
(a lost ode: 《孟子》 quotes a few) stays unlinked.
"""

from __future__ import annotations

import bisect
import re

from core.language.text import squash
from core.types import Passage

QUOTATION = re.compile(r"《?诗》?[云曰][：:，,]?\s*[「『“‘\"]([^」』”’\"]+)")
CLAUSE = re.compile(r"[，。、；：！？,.;:!?\s]+")
MIN_CLAUSE = 3


def quotations(text: str) -> list[str]:
    """The quoted words of every 《诗》云 in `text`, in order."""
    return [m.group(1) for m in QUOTATION.finditer(text)]


def link_songs(passages: list[Passage]) -> dict[str, tuple[str, ...]]:
    """Passage id → the ids of the poems it quotes, for every passage outside the Songs that quotes one."""
    poems = _Poems([(p.id, squash(p.text)) for p in passages if p.corpus == "shijing"])
    links: dict[str, tuple[str, ...]] = {}
    for p in passages:
        if p.corpus == "shijing" or "诗" not in p.text:  # every quotation starts 诗云 / 诗曰
            continue
        found: list[str] = []
        for quoted in quotations(p.text):
            poem = poems.best(quoted)
            if poem and poem not in found:
                found.append(poem)
        if found:
            links[p.id] = tuple(found)
    return links


class _Poems:
    """The poems' squashed texts joined into one string, so that finding the poems that hold a clause
    is a few `str.find` calls rather than one `in` per poem (40 ms of every start)."""

    def __init__(self, poems: list[tuple[str, str]]):
        self._ids = [pid for pid, _ in poems]
        self._starts: list[int] = []
        offset = 0
        for _, text in poems:
            self._starts.append(offset)
            offset += len(text) + 1
        self._ends = [start + len(text) for start, (_, text) in zip(self._starts, poems, strict=True)]
        self._joined = "\n".join(text for _, text in poems)

    def holding(self, clause: str) -> set[int]:
        """The indexes of the poems whose text holds `clause` (a match across two poems counts for none)."""
        out: set[int] = set()
        at = self._joined.find(clause)
        while at >= 0:
            i = bisect.bisect_right(self._starts, at) - 1
            if at + len(clause) <= self._ends[i]:
                out.add(i)
            at = self._joined.find(clause, at + 1)
        return out

    def best(self, quoted: str) -> str | None:
        """The poem that holds most of the quotation's clauses (their characters), the first one on a
        tie; None when none holds any."""
        clauses = [c for c in (squash(part) for part in CLAUSE.split(quoted)) if len(c) >= MIN_CLAUSE]
        scores = [0] * len(self._ids)
        for c in clauses:
            for i in self.holding(c):
                scores[i] += len(c)
        best, best_score = None, 0
        for pid, score in zip(self._ids, scores, strict=True):
            if score > best_score:
                best, best_score = pid, score
        return best


def with_links(passages: list[Passage]) -> list[Passage]:
    """`passages` with `meta["songs"]` (the poems a passage quotes) and, on each quoted poem,
    `meta["quoted_in"]` (the passages that quote it)."""
    links = link_songs(passages)
    quoted_in: dict[str, list[str]] = {}
    for pid, poems in links.items():
        for poem in poems:
            quoted_in.setdefault(poem, []).append(pid)
    out = []
    for p in passages:
        if p.id in links:
            p.meta["songs"] = list(links[p.id])
        if p.id in quoted_in:
            p.meta["quoted_in"] = quoted_in[p.id]
        out.append(p)
    return out
