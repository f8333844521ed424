"""Citations you can check: number the passages the model sees, keep the map, clean the final text.

Passages reach the model as `[n] ref` + text (never raw ids); the number → passage map stays here.
When the reply is done, `finalize` keeps only markers that name a known passage, drops invented ones
(never shown), renumbers the used ones 1..m in order of first use and returns the footnotes.

Marker forms understood: [1], 【1】, [1][2], [1,2], [1，2], [1、2], [1-3] (a short range). Output is
always `[n]`, one bracket per number. `CitationStream` applies the same rules to streamed deltas, so
the streamed text and the final text agree character for character.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from core.events import Citation
from core.types import Passage

_OPEN = "[【"
_SEP = r"\s*(?:[,，、;；]|[-–~])\s*"
_MARKER = re.compile(r"[\[【]\s*(\d{1,3}(?:" + _SEP + r"\d{1,3})*)\s*[\]】]")
_PARTIAL = re.compile(r"[\[【]\s*(?:\d{1,3}(?:" + _SEP + r"(?:\d{1,3})?)*)?\s*")
_PARTIAL_MAX = 32
_RANGE_MAX = 10
_SPACES = " \t"


def as_passage(item: Passage | Mapping[str, Any]) -> Passage:
    """Accept a Passage or a dict with at least `id` (and usually `ref`, `text`; `corpus`, `title`
    when the tool gave them)."""
    if isinstance(item, Passage):
        return item
    pid = str(item["id"])
    return Passage(
        id=pid,
        ref=str(item.get("ref") or pid),
        corpus=str(item.get("corpus") or ""),
        title=str(item.get("title") or ""),
        text=str(item.get("text") or ""),
    )


class CitationBook:
    """The number → passage map for one reply.

    Numbers are given in order of first appearance; the same passage id keeps its number.
    """

    def __init__(self) -> None:
        self._by_number: dict[int, Passage] = {}
        self._by_id: dict[str, int] = {}

    def number(self, item: Passage | Mapping[str, Any]) -> int:
        """The number for this passage, assigning the next one on first sight."""
        passage = as_passage(item)
        if passage.id not in self._by_id:
            n = len(self._by_number) + 1
            self._by_id[passage.id] = n
            self._by_number[n] = passage
        return self._by_id[passage.id]

    def passage(self, n: int) -> Passage | None:
        return self._by_number.get(n)

    def __len__(self) -> int:
        return len(self._by_number)

    # ---------------------------------------------------------------- what the model sees
    def render_passages(self, passages: Iterable[Passage | Mapping[str, Any]]) -> str:
        """Number the passages and show them as `[n] ref` newline `text`, blank line between."""
        blocks = []
        for item in passages:
            passage = as_passage(item)
            blocks.append(f"[{self.number(passage)}] {passage.ref}\n{passage.text}".rstrip())
        return "\n\n".join(blocks)

    def render(self, content: Mapping[str, Any] | str | None) -> str:
        """A tool result as observation text; a "passages" list is numbered, other keys kept as JSON."""
        if content is None:
            return ""
        if isinstance(content, str):
            return content
        passages = content.get("passages")
        rest = {k: v for k, v in content.items() if k != "passages"}
        if not isinstance(passages, list):
            return json.dumps(dict(content), ensure_ascii=False, default=str)
        parts = [json.dumps(rest, ensure_ascii=False, default=str)] if rest else []
        valid = [p for p in passages if isinstance(p, (Passage, Mapping)) and "id" in _keys(p)]
        parts.append(self.render_passages(valid) if valid else "(no passages found)")
        return "\n\n".join(parts)

    # ---------------------------------------------------------------- the final text
    def stream(self) -> CitationStream:
        """A filter for streamed text that applies `finalize`'s rules as the deltas arrive."""
        return CitationStream(self)

    def finalize(self, text: str) -> tuple[str, tuple[Citation, ...]]:
        """Clean `text`: invented markers dropped, used ones renumbered 1..m; return it with footnotes."""
        stream = self.stream()
        out = stream.feed(text) + stream.flush()
        return out, stream.citations()


def _keys(item: Passage | Mapping[str, Any]) -> Iterable[str]:
    return ("id",) if isinstance(item, Passage) else item.keys()


class CitationStream:
    """Rewrites citation markers in text that arrives in pieces.

    A possible marker (and the spaces before it) is held back until it is complete, so a reader
    never sees an invented number or an old numbering. `feed` returns the text that is safe to
    show; `flush` returns the rest at the end.
    """

    def __init__(self, book: CitationBook):
        self._book = book
        self._buf = ""
        self._renumber: dict[int, int] = {}

    def feed(self, delta: str) -> str:
        self._buf += delta
        return self._drain(final=False)

    def flush(self) -> str:
        return self._drain(final=True)

    def citations(self) -> tuple[Citation, ...]:
        """Footnotes for the numbers used so far, in their new order."""
        out = []
        for old, new in sorted(self._renumber.items(), key=lambda kv: kv[1]):
            p = self._book.passage(old)
            if p is not None:
                out.append(Citation(n=new, id=p.id, ref=p.ref, text=p.text))
        return tuple(out)

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        buf = self._buf
        while True:
            start = _first_open(buf)
            if start < 0:
                keep = 0 if final else len(buf) - len(buf.rstrip(_SPACES))
                out.append(buf[: len(buf) - keep])
                buf = buf[len(buf) - keep :]
                break
            pre, rest = buf[:start], buf[start:]
            match = _MARKER.match(rest)
            if match:
                rendered = self._rewrite(match.group(1))
                out.append((pre if rendered else pre.rstrip(_SPACES)) + rendered)
                buf = rest[match.end() :]
                continue
            if not final and len(rest) <= _PARTIAL_MAX and _PARTIAL.fullmatch(rest):
                trimmed = pre.rstrip(_SPACES)  # held spaces go if the marker turns out invented
                out.append(trimmed)
                buf = pre[len(trimmed) :] + rest
                break
            out.append(pre + rest[0])
            buf = rest[1:]
        self._buf = buf
        return "".join(out)

    def _rewrite(self, body: str) -> str:
        """`1, 2` → `[a][b]` with new numbers; unknown numbers vanish."""
        rendered = []
        for old in _numbers(body):
            if self._book.passage(old) is None:
                continue
            new = self._renumber.setdefault(old, len(self._renumber) + 1)
            marker = f"[{new}]"
            if marker not in rendered:
                rendered.append(marker)
        return "".join(rendered)


def _first_open(text: str) -> int:
    positions = [i for i in (text.find(c) for c in _OPEN) if i >= 0]
    return min(positions) if positions else -1


def _numbers(body: str) -> list[int]:
    """Numbers in a marker body; `a-b` expands to a..b when it is a short ascending range."""
    out: list[int] = []
    for part in re.split(r"\s*[,，、;；]\s*", body.strip()):
        bounds = [int(x) for x in re.split(r"\s*[-–~]\s*", part) if x]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= _RANGE_MAX:
            out.extend(range(bounds[0], bounds[1] + 1))
        else:
            out.extend(bounds)
    return out
