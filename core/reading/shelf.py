"""The books as a reader walks them: each book's chapters, each chapter's passages in order.

A chapter is what the sources call one: a 论语 or 孟子 篇 (`meta["chapter"]`, its name in
`meta["chapter_name"]`), the whole of 大学 or 中庸 (`meta["chapter"] == 1`, titled with the book's name), and for 诗经 a section
(国风·周南, 国风·召南 … 商颂), numbered 1.. in the order the poems run. Only those fields are read,
so any passage list in corpus order (`core.books.load_library`'s) builds a shelf of the books present.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.books import BOOKS, group_of
from core.types import Passage

BOOK_NAMES: dict[str, tuple[str, str]] = {b.id: (b.name, b.english) for b in BOOKS}
"""Book id → (name, English name), in the registry's order (core/books), the order the shelf lists them."""


@dataclass(frozen=True)
class Chapter:
    """One chapter: its number in the book (1..), its title and its passage ids in order."""

    n: int
    title: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Book:
    """A book on the shelf with its chapters in order."""

    id: str
    name: str
    english: str
    chapters: tuple[Chapter, ...]

    def chapter(self, n: int) -> Chapter | None:
        return self.chapters[n - 1] if 1 <= n <= len(self.chapters) else None


def chapter_key(p: Passage) -> tuple[object, str]:
    """(what tells the passage's chapter apart: its neighbourhood, `core.books.group_of`, as the
    retriever's neighbours read it; the chapter's title)."""
    meta = p.meta or {}
    if p.corpus == "shijing":
        part, section = str(meta.get("chapter", "")), str(meta.get("section", ""))
        return group_of(p), "·".join(x for x in (part, section) if x) or p.title
    return group_of(p), str(meta.get("chapter_name") or p.title or "")


def chapters_of(passages: Iterable[Passage]) -> tuple[Chapter, ...]:
    """One book's passages (in corpus order) grouped into chapters, numbered 1.. in order."""
    groups: list[tuple[object, str, list[str]]] = []
    for p in passages:
        key, title = chapter_key(p)
        if not groups or groups[-1][0] != key:
            groups.append((key, title, []))
        groups[-1][2].append(p.id)
    return tuple(Chapter(n, title, tuple(ids)) for n, (_, title, ids) in enumerate(groups, start=1))


class Shelf:
    """Every present book, its chapters and passages, and where a passage lies.

    Args:
        passages: every passage, each book's in corpus order.
        names: book id → (name, English), in shelf order; books absent from ``passages`` are left out,
            and a book not named here comes last under its id.
    """

    def __init__(self, passages: Iterable[Passage], names: dict[str, tuple[str, str]] | None = None):
        names = BOOK_NAMES if names is None else names
        by_book: dict[str, list[Passage]] = {}
        for p in passages:
            by_book.setdefault(p.corpus, []).append(p)
        order = [b for b in names if b in by_book] + sorted(b for b in by_book if b not in names)
        self._passages = {p.id: p for ps in by_book.values() for p in ps}
        self.books: tuple[Book, ...] = tuple(
            Book(b, *names.get(b, (b, b)), chapters=chapters_of(by_book[b])) for b in order
        )
        self._books = {b.id: b for b in self.books}
        self._place = {pid: (b.id, c.n) for b in self.books for c in b.chapters for pid in c.ids}

    def book(self, book_id: str) -> Book | None:
        return self._books.get(book_id)

    def passage(self, passage_id: str) -> Passage | None:
        return self._passages.get(passage_id)

    def place(self, passage_id: str) -> tuple[str, int] | None:
        """(book id, chapter number) of a passage, or None for an id the shelf does not hold."""
        return self._place.get(passage_id)

    def __contains__(self, passage_id: object) -> bool:
        return passage_id in self._passages

    def __len__(self) -> int:
        return len(self._passages)
