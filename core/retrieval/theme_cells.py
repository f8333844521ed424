"""What a cell of a theme file (data/themes/*.tsv) names: an Analects passage by a snippet of its text
(lunyu.tsv), a poem by its title or section·title (shijing.tsv), a chapter by its id (sishu.tsv).
Read by `ThemeIndex.load` (themes.py) and by the lab's list ordering (evals/topics/order.py)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator

from core.language.text import squash
from core.types import Passage


def theme_rows(passages: Iterable[Passage]) -> Iterator[tuple[str, str, str, str]]:
    """(id, corpus, text, title with its section: 小雅·鹿鸣): what `ThemeIndex.load` and `ThemeCells` read."""
    return ((p.id, p.corpus, p.text, f"{p.meta.get('section', '')}·{p.title}") for p in passages)


class ThemeCells:
    """The passages a cell of a theme file names: an Analects snippet (lunyu.tsv), a poem's title or
    section·title (shijing.tsv: 邶风·谷风; 小雅·X also for a 之什 section), an id (sishu.tsv)."""

    def __init__(self, passages: Iterable[tuple[str, str, str, str]]):
        self.texts: dict[str, str] = {}
        self._titles: dict[str, list[str]] = {}
        analects: list[tuple[str, str]] = []
        for pid, corpus, text, title in passages:
            self.texts[pid] = text
            if corpus == "shijing":
                section, _, name = title.rpartition("·")
                self._titles.setdefault(name, []).append(pid)
                self._titles.setdefault(f"{section}·{name}", []).append(pid)
                if section.endswith("之什"):
                    self._titles.setdefault(f"小雅·{name}", []).append(pid)
            elif corpus == "lunyu":
                analects.append((pid, squash(text)))
        self._containing = _Containing(analects)

    def ids(self, file: str, cell: str) -> list[str]:
        """The ids a cell of `file` (lunyu, sishu, shijing) names, in corpus order (a title: its first poem)."""
        if file == "lunyu":
            return self._containing(squash(cell))
        if file == "shijing":
            return self._titles.get(cell, [])[:1]
        return [cell] if cell in self.texts else []


class _Containing:
    """The ids of the (id, squashed text) pairs whose text contains a key, in their order: a few
    `str.find` over the texts joined (squashed text holds no NUL), not a scan of every text per key."""

    def __init__(self, texts: list[tuple[str, str]]):
        self._ids = [pid for pid, _ in texts]
        self._starts = list(itertools.accumulate((len(text) + 1 for _, text in texts), initial=0))
        self._joined = "\0".join(text for _, text in texts)

    def __call__(self, key: str) -> list[str]:
        if not key:
            return list(self._ids)
        found, at = [], self._joined.find(key)
        while at >= 0:
            n = bisect.bisect_right(self._starts, at) - 1
            found.append(self._ids[n])
            at = self._joined.find(key, self._starts[n + 1])
        return found
