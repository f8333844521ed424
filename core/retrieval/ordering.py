"""The ordering rules that sit on top of fusion: the book a question names, quotes first and topic
surveys.

They are rules, not weights: `book_first` puts the passages of the book a question names ("which
poem …", "孔子说过…") before the other book's, keeping fused order within each; `lines_first` puts the passages whose whole line the query contains
before everything else (core/retrieval/quotes.py); `survey_first` puts a theme's passages first,
in the theme's order, for a survey question (core/retrieval/themes.py).
"""

from __future__ import annotations

import re

from core.books import books_in
from core.language.text import squash
from core.retrieval.fusion import Fused
from core.retrieval.quotes import LineIndex, quotes_first
from core.retrieval.snapshot import PassageTable
from core.retrieval.themes import ThemeIndex


def rule_indexes(passages: PassageTable) -> tuple[LineIndex, ThemeIndex]:
    """The quote-line index and the theme index over the passages (a few ms for the two books)."""
    ordered = [passages[pid] for pid in passages.order]
    lines = LineIndex((p.id, p.text) for p in ordered)
    themes = ThemeIndex.of(ordered)
    return lines, themes


def lines_first(lines: LineIndex, passages: PassageTable, query: str, fused: list[Fused], corpus: str) -> list[Fused]:
    """Passages with a line the query contains first, whatever the routes scored (quotes.py)."""
    books = books_in(corpus)
    quoted = {pid: n for pid, n in lines.quoted(query).items() if passages[pid].corpus in books}
    if not quoted:
        return fused
    by_id = {f.id: f for f in fused}
    out = []
    for pid in quotes_first([f.id for f in fused], quoted):
        f = by_id.get(pid)
        if pid in quoted:
            out.append(Fused(pid, f.score if f else 0.0, dict(f.routes) if f else {}, True, quoted[pid]))
        elif f is not None:
            out.append(f)
    return out


def survey_first(fused: list[Fused], ranking: list[tuple[str, float]]) -> list[Fused]:
    """A survey question ("which poems are love songs?"): the theme's passages first, in the
    theme's order (best known first), then the rest in fused order."""
    by_id = {f.id: f for f in fused}
    top = [by_id.get(pid, Fused(pid, 0.0, {})) for pid, _ in ranking]
    seen = {f.id for f in top}
    return top + [f for f in fused if f.id not in seen]


# Confucius is the first speaker: 子曰 / 仲尼曰 / 孔子曰 before any other 曰, not part of a longer
# name (孟子曰, 曾子曰). The Doctrine of the Mean's 子曰 chapters and the Great Learning's 子曰 are his.
CONFUCIUS_SPEAKS = re.compile(r"^[^曰]*?(?<![\u4e00-\u9fff])(?:子|仲尼|孔子)曰")


def book_first(fused: list[Fused], book: str, passages: PassageTable, *, speakers: bool = False) -> list[Fused]:
    """The passages of `book` (a selection: "lunyu", "lunyu,mengzi" …; "all": no change) first, fused
    order kept. With `speakers`, a question naming Confucius (the Analects' selection) also keeps first
    the passages of another book where Confucius is the one who speaks: a question after one saying
    ("孔子说，中庸很难做到") may be after 中庸's 子曰 chapters, while a question about his views on a
    theme keeps to the Analects, the record of his sayings (the caller passes `speakers` for the first)."""
    if book == "all":
        return fused
    books = books_in(book)
    confucius = speakers and "lunyu" in books

    def named(f: Fused) -> bool:
        p = passages[f.id]
        return p.corpus in books or (confucius and bool(CONFUCIUS_SPEAKS.match(p.text)))

    return sorted(fused, key=lambda f: not named(f))


LINKED_TOP = 5
LINKED_RUN = 4


def linked_sources(fused: list[Fused], passages: PassageTable, query: str) -> list[Fused]:
    """A passage near the top that quotes a poem in words the query shares (four characters in a
    row) brings that poem right after it: "孟子在哪里引用了经始灵台" finds 《孟子·梁惠王上》 and 灵台
    (core/books/songs.py links them)."""
    key = squash(query)
    if len(key) < LINKED_RUN:
        return fused
    runs = {key[i : i + LINKED_RUN] for i in range(len(key) - LINKED_RUN + 1)}
    out = list(fused)
    for f in fused[:LINKED_TOP]:
        for poem in passages[f.id].meta.get("songs", ()):
            if poem in passages and poem not in {x.id for x in out[: LINKED_TOP + 1]}:
                text = squash(passages[poem].text)
                if any(run in text for run in runs):
                    out = [x for x in out if x.id != poem]
                    at = next(i for i, x in enumerate(out) if x.id == f.id) + 1
                    out.insert(at, Fused(poem, f.score, {"linked": 1}, False))
    return out
