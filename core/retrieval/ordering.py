"""The ordering rules that sit on top of fusion: the book a question names, quotes first and topic
surveys.

They are rules, not weights: `book_first` puts the passages of the book a question names ("which
poem …", "孔子说过…") before the other book's, keeping fused order within each; `lines_first` puts the passages whose whole line the query contains
before everything else (core/retrieval/quotes.py); `survey_first` puts a theme's passages first,
in the theme's order, for a survey question (core/retrieval/themes.py).
"""

from __future__ import annotations

from core.retrieval.fusion import Fused
from core.retrieval.quotes import LineIndex, quotes_first
from core.retrieval.snapshot import PassageTable
from core.retrieval.themes import ThemeIndex


def rule_indexes(passages: PassageTable) -> tuple[LineIndex, ThemeIndex]:
    """The quote-line index and the theme index over the passages (a few ms for the two books)."""
    ordered = [passages[pid] for pid in passages.order]
    lines = LineIndex((p.id, p.text) for p in ordered)
    themes = ThemeIndex.load((p.id, p.corpus, p.text, f"{p.meta.get('section', '')}·{p.title}") for p in ordered)
    return lines, themes


def lines_first(lines: LineIndex, passages: PassageTable, query: str, fused: list[Fused], corpus: str) -> list[Fused]:
    """Passages with a line the query contains first, whatever the routes scored (quotes.py)."""
    quoted = {pid: n for pid, n in lines.quoted(query).items() if corpus == "all" or passages[pid].corpus == corpus}
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


def book_first(fused: list[Fused], book: str, passages: PassageTable) -> list[Fused]:
    """The passages of `book` ("lunyu" / "shijing"; "all": no change) first, fused order kept."""
    if book == "all":
        return fused
    return sorted(fused, key=lambda f: passages[f.id].corpus != book)
