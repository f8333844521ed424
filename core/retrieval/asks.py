"""What readers type for a passage: short modern-Chinese asks, embedded as more gloss vectors.

A short paraphrase ("懂就是懂，不懂就说不懂", "有钱不乱来没钱不变节") is far, for the small embedder,
from the classical text, and nearer its gloss (glosses.py), which says the point once, in one wording
and register. Document expansion (doc2query: store with a document the queries it answers) adds other
wordings: `data/glosses/asks/*.jsonl` holds, per passage, four or five things a reader who
half-remembers it might type (`{"id": "lunyu:2.17", "zh": ["…", "…"]}`, each ≤ MAX_ASK_CHARS, in
modern words, each on a different point of a long passage; written from the texts alone, never from
a query set: data/glosses/README.md). They are embedded with the gloss vectors (gloss_vectors.py) and
count for Chinese queries only (an English question's nearest Chinese ask is no evidence); the gloss
route's BM25 documents stay the glosses (appending the asks there lost title and topic questions).
"""

from __future__ import annotations

from pathlib import Path

from core.retrieval.jsonl import jsonl_rows

ASK_DIR = "asks"  # a folder of data/glosses
MAX_ASK_CHARS = 24
MAX_ASKS = 6


class AskError(ValueError):
    """An asks file is malformed; the message names file:line."""


def load_asks(folder: Path) -> dict[str, tuple[str, ...]]:
    """Every passage's asks in `folder`/*.jsonl, by id (a missing folder: none). Raises
    AskError naming file:line for a malformed line, an over-long ask or an id given twice."""
    asks: dict[str, tuple[str, ...]] = {}
    for where, row in jsonl_rows(folder, AskError):
        items = row.get("zh") if isinstance(row, dict) else None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not isinstance(items, list):
            raise AskError(f'{where}: expected {{"id": str, "zh": [str, …]}}')
        if not 0 < len(items) <= MAX_ASKS or not all(_fits(a) for a in items):
            raise AskError(f"{where}: 1–{MAX_ASKS} asks of 1–{MAX_ASK_CHARS} characters each")
        if row["id"] in asks:
            raise AskError(f"{where}: {row['id']} has asks twice")
        asks[row["id"]] = tuple(a.strip() for a in items)
    return asks


def _fits(ask: object) -> bool:
    return isinstance(ask, str) and 0 < len(ask.strip()) <= MAX_ASK_CHARS
