"""Passages as retrieval indexes them: the text each is embedded and keyword-indexed with, and its
content hash. Ids, order and loading belong to the books (core/books); they are re-exported here for
the retrieval modules. Each unit is whole: no overlap chunking.
"""

from __future__ import annotations

import hashlib

from core.books import (
    BOOK_IDS,
    CorpusError,
    Library,
    group_of,
    is_passage_id,
    load_corpus,
    load_library,
    sort_key,
)
from core.types import Passage

__all__ = [
    "CORPORA",
    "CorpusError",
    "Library",
    "Passage",
    "content_hash",
    "embedding_text",
    "group_of",
    "is_passage_id",
    "load_corpus",
    "load_library",
    "sort_key",
]

CORPORA = BOOK_IDS


def embedding_text(passage: Passage) -> str:
    """The text a passage is embedded and keyword-indexed with.

    A poem's title is part of what it is called by (关雎, 硕鼠), so it comes first. An Analects or
    Mencius chapter name is only the first words of the chapter's first paragraph (阳货, 梁惠王上):
    adding it to every paragraph would make each one match those names, so passages are indexed alone.
    """
    if passage.corpus == "shijing":
        return f"{passage.title}\n{passage.text}"
    return passage.text


def content_hash(passage: Passage) -> str:
    """sha256 of what gets embedded; an unchanged hash means no re-embedding."""
    return hashlib.sha256(embedding_text(passage).encode("utf-8")).hexdigest()
