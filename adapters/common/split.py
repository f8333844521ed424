"""Split a long Markdown reply into messages that each fit a platform limit.

Breaks are chosen at paragraph, then line, then sentence boundaries, and only as a last resort
inside a line. A break never leaves a code block open: when a part has to end inside a fenced
block, the fence is closed at the end of that part and reopened (same fence and info string) at
the start of the next one, so every part renders on its own.

Lengths are measured with the caller's ``measure`` callable, applied to the part exactly as it
will be sent *before* the platform's own formatting — a renderer passes e.g.
``lambda s: utf16_len(to_html(s))`` so that the limit holds after escaping.

Joining the parts after removing the added fence lines reproduces the input exactly
(see :func:`strip_fence_repairs`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

Measure = Callable[[str], int]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_SENTENCE_END = re.compile(r"(?:[。！？；!?;…]+[”’」』）)]*|\.(?=\s))\s*")

PARAGRAPH, LINE, SENTENCE = 0, 1, 2


@dataclass(frozen=True)
class _Fence:
    """An open fenced code block: its opening line (without newline) and its marker."""

    line: str
    marker: str

    def closes(self, line: str) -> bool:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        return len(stripped) >= len(self.marker) and set(stripped) == {self.marker[0]} and indent <= 3


def _opens(line: str) -> _Fence | None:
    m = _FENCE.match(line)
    if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
        return _Fence(line, m.group(1))
    return None


@dataclass
class _Scan:
    """Where breaks may go and which fence is open at every line start."""

    breaks: dict[int, int] = field(default_factory=dict)  # offset -> best break kind there
    line_starts: list[int] = field(default_factory=list)
    fence_at_line: list[_Fence | None] = field(default_factory=list)
    final_fence: _Fence | None = None
    markers: set[str] = field(default_factory=set)


def _scan(text: str) -> _Scan:
    scan = _Scan()
    fence: _Fence | None = None
    pos = 0
    for line in text.splitlines(keepends=True):
        scan.line_starts.append(pos)
        scan.fence_at_line.append(fence)
        body, end = line.rstrip("\r\n"), pos + len(line)
        kind: int | None = LINE
        if fence is None:
            fence = _opens(body)
            if fence:
                scan.markers.add(fence.marker)
                kind = None  # never leave an empty block behind
            else:
                _add_sentence_breaks(scan.breaks, body, pos)
                kind = PARAGRAPH if not body.strip() else LINE
        elif fence.closes(body):
            fence = None
            scan.breaks.pop(pos, None)  # no break right before a closing fence
            kind = PARAGRAPH
        if kind is not None and end < len(text):
            scan.breaks[end] = min(kind, scan.breaks.get(end, LINE))
        pos = end
    scan.final_fence = fence
    return scan


def _add_sentence_breaks(breaks: dict[int, int], body: str, offset: int) -> None:
    for m in _SENTENCE_END.finditer(body):
        if 0 < m.end() < len(body):
            breaks.setdefault(offset + m.end(), SENTENCE)


class _Splitter:
    def __init__(self, text: str, limit: int, measure: Measure) -> None:
        self.text, self.limit, self.measure = text, limit, measure
        self.scan = _scan(text)
        self.break_positions = sorted(self.scan.breaks)

    def fence_at(self, pos: int) -> _Fence | None:
        """The fence open at char offset ``pos``: the state at the start of the line holding it."""
        if pos >= len(self.text):
            return self.scan.final_fence
        i = bisect_right(self.scan.line_starts, pos) - 1
        return self.scan.fence_at_line[i] if i >= 0 else None

    def render(self, start: int, end: int) -> str:
        body = self.text[start:end]
        opening, closing = self.fence_at(start), self.fence_at(end)
        head = opening.line + "\n" if opening else ""
        tail = ("" if body.endswith("\n") else "\n") + closing.marker if closing else ""
        return head + body + tail

    def fits(self, start: int, end: int) -> bool:
        return self.measure(self.render(start, end)) <= self.limit

    def next_end(self, start: int) -> int:
        """The end of the part that starts at ``start``: the best break that still fits."""
        if self.fits(start, len(self.text)):
            return len(self.text)
        hard = self._longest_fit(start)
        lo = bisect_right(self.break_positions, start)
        hi = bisect_right(self.break_positions, hard)
        candidates = self.break_positions[lo:hi]
        half = start + (hard - start) // 2
        for floor in (half, start):  # prefer breaks that keep parts at least half full
            for kind in (PARAGRAPH, LINE, SENTENCE):
                for p in reversed(candidates):
                    if p <= floor:
                        break
                    if self.scan.breaks[p] == kind and self.fits(start, p):
                        return p
        return max(hard, start + 1)

    def _longest_fit(self, start: int) -> int:
        """The furthest end that fits: gallop from ``limit`` characters, then bisect."""
        lo, step = start, max(1, self.limit)
        hi = min(len(self.text), start + step)
        while hi < len(self.text) and self.fits(start, hi):
            lo, step = hi, step * 2
            hi = min(len(self.text), start + step)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.fits(start, mid):
                lo = mid
            else:
                hi = mid - 1
        return lo


def split_text(text: str, limit: int, measure: Measure = len) -> list[str]:
    """Split ``text`` into parts with ``measure(part) <= limit``, in order, fences balanced.

    Args:
        text: Markdown text of any length.
        limit: the largest measure one part may have (e.g. 4096 for Telegram).
        measure: length of a part as the platform counts it, after escaping/formatting.

    Returns:
        The parts in order. An empty or blank text gives ``[]``. A single character that alone
        exceeds ``limit`` still forms a part (the only case where a part can exceed it).
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    if not text.strip():
        return []
    splitter = _Splitter(text, limit, measure)
    parts: list[str] = []
    start = 0
    while start < len(text):
        end = splitter.next_end(start)
        parts.append(splitter.render(start, end))
        start = end
    return parts


def strip_fence_repairs(parts: list[str], text: str) -> str:
    """Undo the fence lines :func:`split_text` added, joining the parts back into ``text``.

    Used by tests and checks: ``strip_fence_repairs(split_text(t, n), t) == t``. Raises
    ValueError when the parts are not a split of ``text``.
    """
    splitter = _Splitter(text, 1, len)
    pos, bodies = 0, []
    for part in parts:
        opening = splitter.fence_at(pos)
        head = len(opening.line) + 1 if opening else 0
        rest = len(part) - head
        cuts = {0} | {len(m) + k for m in splitter.scan.markers for k in (0, 1)}
        for length in sorted((rest - c for c in cuts), reverse=True):
            if 0 < length <= len(text) - pos and splitter.render(pos, pos + length) == part:
                bodies.append(part[head : head + length])
                pos += length
                break
        else:
            raise ValueError(f"part does not continue the text at offset {pos}")
    if pos != len(text):
        raise ValueError("parts stop before the end of the text")
    return "".join(bodies)
