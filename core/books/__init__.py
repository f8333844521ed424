"""The books Fuzi reads: one entry each (registry.py), their passage ids, their order, and loading
them from the corpus folder.

Passage ids: `lunyu:<篇>.<章>` and `shijing:<n>` in the files' order; `mengzi:<book 1–14>.<chapter>` in
the standard division into 260 chapters (`mengzi:1.3` = 《孟子·梁惠王上》第3章); `daxue:<n>` and
`zhongyong:<n>` in the package's (the old 礼记) order, cited with their place in 朱熹's 章句
(docs/retrieval.md, "The books"). `corpus` selections: one book's id, `sishu` (the Four Books:
论语 孟子 大学 中庸) or `all`.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from core.books.book import Book
from core.books.registry import BOOKS, OTHER_CLASSICS, SISHU
from core.books.songs import with_links
from core.language.text import to_simplified
from core.types import Passage

__all__ = ["BOOKS", "OTHER_CLASSICS", "SISHU", "Book", "CorpusError", "Library", "book", "books_in"]

BOOK_IDS = tuple(b.id for b in BOOKS)
SELECTIONS = ("all", *BOOK_IDS, "sishu")
"""What `--corpus` and the search tool accept."""

_RANK = {b.id: i for i, b in enumerate(BOOKS)}
_BY_ID = {b.id: b for b in BOOKS}
_ID_RE = re.compile(r"^([a-z]+):(\d{1,3})(?:\.(\d{1,3}))?$")


class CorpusError(Exception):
    """The corpus files are missing or do not have the expected shape."""


def book(book_id: str) -> Book:
    """The book with this id; KeyError for another."""
    return _BY_ID[book_id]


def books_in(corpus: str) -> tuple[str, ...]:
    """The book ids a selection covers (`all`, `sishu`, one id, or ids joined by commas:
    `lunyu,mengzi`), in registry order; ValueError for anything else."""
    if corpus == "all":
        return BOOK_IDS
    if corpus == "sishu":
        return SISHU
    if corpus in _BY_ID:
        return (corpus,)
    named = {c.strip() for c in corpus.split(",")}
    if len(named) > 1 and named <= set(_BY_ID):
        return tuple(b for b in BOOK_IDS if b in named)
    raise ValueError(f"corpus must be one of {', '.join(SELECTIONS)} (or book ids joined by commas)")


def is_passage_id(value: str) -> bool:
    """True for a well-formed passage id of a known book (`lunyu:3.22`, `shijing:1`, `mengzi:1.3`)."""
    m = _ID_RE.match(value or "")
    if not m or m.group(1) not in _BY_ID:
        return False
    return (m.group(3) is not None) == (_BY_ID[m.group(1)].levels == 2)


LATER = frozenset(b.id for b in BOOKS if b.later)
"""The books written after the Master's time (孟子, 大学, 中庸)."""


def is_later(passage_id: str) -> bool:
    """True for a passage of a later book: not the Master's words; after its source when it quotes."""
    return passage_id.split(":", 1)[0] in LATER


def book_order(book_id: str) -> int:
    """A book's place in the registry (unknown books last)."""
    return _RANK.get(book_id, len(_RANK))


def sort_key(passage_id: str) -> tuple:
    """Corpus order: the books in registry order, each by its numbers."""
    m = _ID_RE.match(passage_id)
    if not m or m.group(1) not in _RANK:
        return (99, passage_id)
    return (_RANK[m.group(1)], int(m.group(2)), int(m.group(3) or 0))


def group_of(p: Passage) -> tuple:
    """The passage's neighbourhood: its book and chapter (论语 篇, 孟子 篇), or its 诗经 chapter and section."""
    if p.corpus == "shijing":
        return ("shijing", p.meta.get("chapter"), p.meta.get("section"))
    return (p.corpus, p.meta.get("chapter"))


@dataclass(frozen=True)
class Library:
    """What a corpus folder holds: every passage of the books present, and the books missing."""

    passages: list[Passage]
    present: tuple[str, ...]
    missing: tuple[str, ...]

    def missing_line(self) -> str:
        """One line naming the missing books, "" when none is."""
        if not self.missing:
            return ""
        names = "、".join(f"《{book(b).name}》" for b in self.missing)
        return f"corpus: {names} not in the corpus folder; answering from the other books (`fuzi data fetch` adds them)"


def load_library(corpus_dir: Path) -> Library:
    """Every passage of the books whose file the folder holds, in id order; CorpusError when it holds
    none or a file has an unexpected shape. The files' checksums are data/corpus.py's concern.

    The composition root asks for the library once per part (first start, recitation, quizzes, the
    daily passage, the reading room): the folder is read and cut once per process while its files
    stay as they are (their size and modification time), and each caller gets its own list.
    """
    corpus_dir = Path(corpus_dir).resolve()
    files = tuple((b.file, _signature(corpus_dir / b.file)) for b in BOOKS)
    library = _read_library(corpus_dir, files)
    return Library(list(library.passages), library.present, library.missing)


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read_library(corpus_dir: Path, files: tuple[tuple[str, tuple[int, int] | None], ...]) -> Library:
    """`load_library`'s work for one state of the folder (`files`: each file's size and mtime)."""
    passages: list[Passage] = []
    present, missing = [], []
    for b in BOOKS:
        path = corpus_dir / b.file
        if not path.is_file():
            missing.append(b.id)
            continue
        try:
            raw = path.read_text(encoding="utf-8")
            data = json.loads(_simplified(raw) if b.traditional else raw)
            passages.extend(b.parse(data))
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{path} is not valid JSON: {exc}") from None
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CorpusError(f"{path} has an unexpected shape: {exc}") from None
        present.append(b.id)
    if not present:
        raise CorpusError(f"no corpus file in {corpus_dir}; run `fuzi data fetch`")
    return Library(with_links(passages), tuple(present), tuple(missing))


def _simplified(raw: str) -> str:
    """A Traditional file's text in Simplified, with the corner quotation marks 「」『』 as the other
    books print them (“” ‘’)."""
    return to_simplified(raw).translate(_QUOTES)


_QUOTES = str.maketrans({"「": "“", "」": "”", "『": "‘", "』": "’"})


def load_corpus(corpus_dir: Path) -> list[Passage]:
    """Every passage of the books present (load_library's passages)."""
    return load_library(corpus_dir).passages
