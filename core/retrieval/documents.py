"""Passages of the Analects (论语) and the Book of Songs (诗经): ids, references, loading.

One passage per Analects paragraph (`lunyu:<chapter>.<paragraph>`) and one per poem
(`shijing:<n>`), 1-based in the corpus files' order. Each unit is whole: no overlap chunking.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from core.types import Passage

CORPORA = ("lunyu", "shijing")
_ID_RE = re.compile(r"^(?:lunyu:(\d{1,2})\.(\d{1,3})|shijing:(\d{1,3}))$")


class CorpusError(Exception):
    """The corpus files are missing or do not have the expected shape."""


def embedding_text(passage: Passage) -> str:
    """The text a passage is embedded and keyword-indexed with.

    A poem's title is part of what it is called by (关雎, 硕鼠), so it comes first. An Analects
    chapter name is only the first words of the chapter's first paragraph (阳货, 颜渊): adding it to
    every paragraph would make each one match those names, so paragraphs are indexed alone.
    """
    if passage.corpus == "shijing":
        return f"{passage.title}\n{passage.text}"
    return passage.text


def content_hash(passage: Passage) -> str:
    """sha256 of what gets embedded; an unchanged hash means no re-embedding."""
    return hashlib.sha256(embedding_text(passage).encode("utf-8")).hexdigest()


def group_of(p: Passage) -> tuple:
    """The passage's neighbourhood: its 论语 chapter, or its 诗经 chapter and section."""
    if p.corpus == "lunyu":
        return ("lunyu", p.meta.get("chapter"))
    return ("shijing", p.meta.get("chapter"), p.meta.get("section"))


def is_passage_id(value: str) -> bool:
    """True for a well-formed passage id (`lunyu:3.22`, `shijing:1`)."""
    return bool(_ID_RE.match(value or ""))


def sort_key(passage_id: str) -> tuple:
    """Corpus order: all of 论语 by chapter and paragraph, then 诗经 by number."""
    m = _ID_RE.match(passage_id)
    if not m:
        return (9, passage_id)
    if m.group(3):
        return (1, int(m.group(3)), 0)
    return (0, int(m.group(1)), int(m.group(2)))


def lunyu_passages(chapters: list[dict]) -> list[Passage]:
    """Analects paragraphs from lunyu.json (`[{"chapter": "学而篇", "paragraphs": [...]}, …]`)."""
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


def shijing_passages(poems: list[dict]) -> list[Passage]:
    """Book of Songs poems from shijing.json (`[{"title", "chapter", "section", "content"}, …]`)."""
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


def load_corpus(corpus_dir: Path) -> list[Passage]:
    """Every passage of both books, in id order; raises CorpusError naming what is wrong."""
    corpus_dir = Path(corpus_dir)
    try:
        lunyu = json.loads((corpus_dir / "lunyu.json").read_text(encoding="utf-8"))
        shijing = json.loads((corpus_dir / "shijing.json").read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CorpusError(f"corpus file missing: {exc.filename}; run `fuzi data fetch`") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(f"corpus file is not valid JSON: {exc}") from None
    try:
        return lunyu_passages(lunyu) + shijing_passages(shijing)
    except (KeyError, TypeError) as exc:
        raise CorpusError(f"corpus file has an unexpected shape: {exc!r}") from None
