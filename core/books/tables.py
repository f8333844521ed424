"""The committed tables that cut and cite the books: `data/books/mengzi.tsv` (the package's turns of
dialogue → the chapters of the standard division) and `data/books/zhuxi.tsv` (each paragraph of 大学
and 中庸 → its place in 朱熹's 章句). Both are data, written once and checked by tests
(tests/test_books.py); data/books/README.md says where they come from."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

BOOKS_DIR = Path(str(resources.files("data") / "books"))


@dataclass(frozen=True)
class ChapterRow:
    """One 孟子 chapter: `chapter` of its book spans the package's paragraphs `first`…`last` (1-based)."""

    chapter: int
    first: int
    last: int
    opening: str


def _rows(name: str) -> list[list[str]]:
    lines = (BOOKS_DIR / name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


@functools.cache
def mengzi_chapters() -> dict[int, list[ChapterRow]]:
    """Book number (1–14) → its chapters in order."""
    out: dict[int, list[ChapterRow]] = {}
    for cells in _rows("mengzi.tsv"):
        book, chapter, first, last, opening = cells[:5]
        out.setdefault(int(book), []).append(ChapterRow(int(chapter), int(first), int(last), opening.strip()))
    return out


@functools.cache
def zhuxi_places(book_id: str) -> dict[int, str]:
    """Paragraph number → its place in 朱熹's 章句 as a citation shows it: 经, 传三 (大学), 第20章 or
    第14—15章 (中庸)."""
    out: dict[int, str] = {}
    for cells in _rows("zhuxi.tsv"):
        corpus, n, place = cells[0], int(cells[1]), cells[2].strip()
        if corpus == book_id:
            out[n] = _shown(corpus, place)
    return out


CN_DIGITS = "零一二三四五六七八九十"


def chinese_number(n: int) -> str:
    """1 → 一, 10 → 十, 12 → 十二, 20 → 二十, 33 → 三十三 (up to 99)."""
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else ("十" if tens == 1 else CN_DIGITS[tens] + "十")
    return head + (CN_DIGITS[ones] if ones or not head else "")


def _shown(corpus: str, place: str) -> str:
    """`经-传5` → 经、传五; `传3` → 传三 (大学); `20` → 第20章, `14-15` → 第14—15章 (中庸)."""
    if corpus == "daxue":
        return "、".join(f"传{chinese_number(int(p[1:]))}" if p.startswith("传") else p for p in place.split("-"))
    return "第" + "—".join(place.split("-")) + "章"
