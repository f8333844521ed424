"""Quotes first: a message that contains a verbatim line of a passage ranks that passage first.

A *line* is a run of whole clauses of a passage (clauses end at any punctuation or line break) of at
least `MIN_LINE_CHARS` characters once punctuation, spaces and script are set aside: 关关雎鸠，在河之洲
(8), 学而时习之，不亦说乎 (9), 己所不欲，勿施于人 (8); a single 4-character clause is not enough, two
are. The message may carry anything around the line ("孔子说‘学而时习之，不亦说乎’是什么意思？",
"子曰學而時習之不亦說乎" in traditional characters, a line without its punctuation).

This is a rule, not a weight: `HybridRetriever` puts the passages whose line the message contains
before every other result (longest line first, then fused order), whatever the routes scored. The
index keys every clause start of every passage by its next `MIN_LINE_CHARS` characters, so a lookup
is one dict probe per position of the (squashed) message, then a comparison that extends the match
as far as message and passage agree and checks that it ends on a clause boundary.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.books import is_later
from core.language.text import squash, squashed_runs

MIN_LINE_CHARS = 6


def squash_with_bounds(text: str) -> tuple[str, set[int], set[int]]:
    """(squashed text, clause start offsets, clause end offsets) of `text`.

    Squashed = NFKC, lower-cased, simplified characters, only letters and digits kept; a clause
    boundary is any run of other characters (punctuation, spaces, line breaks).
    """
    words = squashed_runs(text)
    starts: set[int] = set()
    ends: set[int] = set()
    n = 0
    for word in words:
        starts.add(n)
        n += len(word)
        ends.add(n)
    return "".join(words), starts, ends


class LineIndex:
    """Which passages have a line that a message contains.

    Args:
        texts: passage id → text, in corpus order.
    """

    def __init__(self, texts: Iterable[tuple[str, str]]):
        self._texts: dict[str, str] = {}
        self._ends: dict[str, frozenset[int]] = {}
        self._keys: dict[str, list[tuple[str, int]]] = {}
        for pid, text in texts:
            squashed, starts, ends = squash_with_bounds(text)
            self._texts[pid] = squashed
            self._ends[pid] = frozenset(ends)
            for start in sorted(starts):
                key = squashed[start : start + MIN_LINE_CHARS]
                if len(key) == MIN_LINE_CHARS:
                    self._keys.setdefault(key, []).append((pid, start))

    def quoted(self, message: str) -> dict[str, int]:
        """Passage id → length of the longest line of it that `message` contains (only quoted ones)."""
        query = squash(message)
        found: dict[str, int] = {}
        for i in range(len(query) - MIN_LINE_CHARS + 1):
            for pid, start in self._keys.get(query[i : i + MIN_LINE_CHARS], ()):
                length = self._line_length(query, i, pid, start)
                if length > found.get(pid, 0):
                    found[pid] = length
        return found

    def _line_length(self, query: str, i: int, pid: str, start: int) -> int:
        """Length of the longest run of whole clauses from `start` that `query[i:]` repeats, or 0."""
        text = self._texts[pid]
        n = MIN_LINE_CHARS
        while i + n < len(query) and start + n < len(text) and query[i + n] == text[start + n]:
            n += 1
        ends = self._ends[pid]
        for length in range(n, MIN_LINE_CHARS - 1, -1):
            if start + length in ends:
                return length
        return 0

    def __len__(self) -> int:
        return len(self._texts)


def quotes_first(order: list[str], quoted: dict[str, int]) -> list[str]:
    """`order` with the quoted passages moved to the front: longest line first; among equal lengths,
    the source before its quotation (a line of the Analects or the Songs before a later book that
    quotes it: 如切如磋 is cited from 淇奥, not from 《大学》), then their place in `order` (quoted
    passages missing from `order` after those in it)."""
    if not quoted:
        return order
    position = {pid: n for n, pid in enumerate(order)}
    front = sorted(quoted, key=lambda pid: (-quoted[pid], is_later(pid), position.get(pid, len(order))))
    return front + [pid for pid in order if pid not in quoted]
