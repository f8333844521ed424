"""How each corpus file becomes passages: the five shapes of the package's files.

Every loader takes the file's JSON with its strings already in Simplified characters and returns
whole passages in the file's order: a 论语 paragraph, a poem, a 孟子 chapter of the standard division
(grouped from the package's turns of dialogue by the committed table, tables.py), a paragraph of
大学 or 中庸 (the package's order, with 朱熹's 章句 place in the citation).
"""

from __future__ import annotations

from typing import Any

from core.books.tables import mengzi_chapters, zhuxi_places
from core.types import Passage


def lunyu(chapters: list[dict]) -> list[Passage]:
    """Analects paragraphs (`[{"chapter": "学而篇", "paragraphs": [...]}, …]`): `lunyu:<篇>.<章>`."""
    out: list[Passage] = []
    for c, chapter in enumerate(chapters, start=1):
        name = str(chapter["chapter"]).removesuffix("篇")
        for p, text in enumerate(chapter["paragraphs"], start=1):
            out.append(
                Passage(
                    id=f"lunyu:{c}.{p}",
                    ref=f"《论语·{name}》第{p}章",
                    corpus="lunyu",
                    title=name,
                    text=str(text).strip(),
                    meta={"chapter": c, "paragraph": p, "chapter_name": name},
                )
            )
    return out


def shijing(poems: list[dict]) -> list[Passage]:
    """Book of Songs poems (`[{"title", "chapter", "section", "content"}, …]`): `shijing:<n>`."""
    out: list[Passage] = []
    for n, poem in enumerate(poems, start=1):
        parts = [poem.get("chapter", ""), poem.get("section", ""), poem["title"]]
        out.append(
            Passage(
                id=f"shijing:{n}",
                ref="《诗经·" + "·".join(p for p in parts if p) + "》",
                corpus="shijing",
                title=str(poem["title"]),
                text="\n".join(str(s).strip() for s in poem["content"]),
                meta={"number": n, "chapter": poem.get("chapter", ""), "section": poem.get("section", "")},
            )
        )
    return out


def mengzi(books: list[dict]) -> list[Passage]:
    """Mencius (`[{"chapter": "梁惠王上", "paragraphs": [...]}, …]`, 14 books): one passage per chapter
    of the standard division, `mengzi:<book>.<chapter>`, its turns of dialogue joined by line breaks."""
    table = mengzi_chapters()
    out: list[Passage] = []
    for b, book in enumerate(books, start=1):
        name = str(book["chapter"])
        paragraphs = [str(t).strip() for t in book["paragraphs"]]
        rows = table.get(b, [])
        covered = [i for row in rows for i in range(row.first, row.last + 1)]
        if covered != list(range(1, len(paragraphs) + 1)):
            raise ValueError(f"the chapter table does not cover 孟子 book {b} ({name}) paragraph by paragraph")
        for row in rows:
            out.append(
                Passage(
                    id=f"mengzi:{b}.{row.chapter}",
                    ref=f"《孟子·{name}》第{row.chapter}章",
                    corpus="mengzi",
                    title=name,
                    text="\n".join(paragraphs[row.first - 1 : row.last]),
                    meta={
                        "chapter": b,
                        "paragraph": row.chapter,
                        "chapter_name": name,
                        "source_paragraphs": [row.first, row.last],
                    },
                )
            )
    return out


def one_book(book_id: str, name: str):
    """A loader for a one-object file (`{"chapter": "大學", "paragraphs": [...]}`): `<book>:<n>` in the
    package's order, cited as `《大学》第4段（章句·传三）` with 朱熹's 章句 place."""

    def load(data: Any) -> list[Passage]:
        places = zhuxi_places(book_id)
        out: list[Passage] = []
        for n, text in enumerate(data["paragraphs"], start=1):
            place = places.get(n, "")
            out.append(
                Passage(
                    id=f"{book_id}:{n}",
                    ref=f"《{name}》第{n}段" + (f"（章句·{place}）" if place else ""),
                    corpus=book_id,
                    title=name,
                    text=str(text).strip(),
                    meta={"chapter": 1, "paragraph": n, "chapter_name": name, "zhuxi": place},
                )
            )
        return out

    return load
