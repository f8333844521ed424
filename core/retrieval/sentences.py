"""Sentence vectors: each sentence of a multi-sentence passage embedded on its own.

A long paragraph's vector dilutes the meaning of any one of its sentences, so a paraphrase of one
line can miss the paragraph. Sentences live in a second LanceDB table (`<table>_sentences`, the
passage's id and content hash on every row); results stay passage-level: the retriever maps
sentence hits back to their passages (docs/retrieval.md has the measurement).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from core.retrieval.documents import CORPORA, Passage
from core.retrieval.errors import IndexMismatchError
from core.retrieval.flat import FlatVectors
from core.text import cjk_count

if TYPE_CHECKING:
    from lancedb.table import Table


_SENTENCE = re.compile(r"[^。！？；\n]+[。！？；]?")
MIN_CHARS = 4


def split_sentences(passage: Passage) -> list[str]:
    """The passage's sentences of ≥ 4 CJK characters; empty when it has only one (its own vector suffices)."""
    sentences = [s.strip() for s in _SENTENCE.findall(passage.text) if cjk_count(s) >= MIN_CHARS]
    return sentences if len(sentences) > 1 else []


class SentenceStore:
    """The sentence table next to the passage table (same LanceDB folder, same embedder).

    Args:
        db: an open LanceDB connection (the passage store's).
        name: table name.
    """

    def __init__(self, db, name: str):
        self._db = db
        self._name = name
        self._table: Table | None = None
        self._flat: FlatVectors | None = None

    def load_flat(self) -> bool:
        """Hold the sentence vectors in memory for exact search; True when the table exists."""
        table = self._open()
        self._flat = None
        if table is not None:
            self._flat = FlatVectors.from_arrow(
                table.search().select(["passage_id", "corpus", "vector"]).limit(None).to_arrow(), "passage_id"
            )
        return self._flat is not None

    @property
    def in_memory(self) -> bool:
        return self._flat is not None and len(self._flat) <= 20_000

    def _open(self):
        if self._table is None:
            try:
                self._table = self._db.open_table(self._name)
            except ValueError:
                return None
        return self._table

    def exists(self) -> bool:
        return self._open() is not None

    def create(self, model_name: str, dim: int) -> None:
        schema = pa.schema(
            [
                pa.field("passage_id", pa.string()),
                pa.field("corpus", pa.string()),
                pa.field("content_hash", pa.string()),
                pa.field("vector", pa.list_(pa.float32(), dim)),
            ],
            metadata={"embedding_model": model_name, "embedding_dim": str(dim)},
        )
        self._table = self._db.create_table(self._name, schema=schema, mode="overwrite")
        self._flat = None

    def recorded_model(self) -> tuple[str, int] | None:
        table = self._open()
        if table is None:
            return None
        meta = table.schema.metadata or {}
        return meta.get(b"embedding_model", b"?").decode(), int(meta.get(b"embedding_dim", b"0").decode() or 0)

    def hashes(self) -> dict[str, str]:
        """passage id -> content hash of the passages that have sentence rows."""
        table = self._open()
        if table is None:
            return {}
        rows = table.search().select(["passage_id", "content_hash"]).limit(None).to_arrow()
        return dict(zip(rows["passage_id"].to_pylist(), rows["content_hash"].to_pylist()))

    def replace(self, passages: list[Passage], sentences: list[list[str]], vectors: np.ndarray) -> None:
        """Delete the sentence rows of `passages` and insert the new ones (vectors in sentence order)."""
        table = self._open()
        self._flat = None
        self.delete([p.id for p in passages])
        ids = [p.id for p, ss in zip(passages, sentences) for _ in ss]
        if not ids:
            return
        dim = table.schema.field("vector").type.list_size
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(ids), dim):
            raise IndexMismatchError(f"sentence vectors have shape {vectors.shape}, expected {(len(ids), dim)}")
        corpus = {p.id: p.corpus for p in passages}
        hashes = {p.id: p.content_hash for p in passages}
        table.add(
            pa.table(
                {
                    "passage_id": ids,
                    "corpus": [corpus[i] for i in ids],
                    "content_hash": [hashes[i] for i in ids],
                    "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim),
                },
                schema=table.schema,
            )
        )

    def delete(self, passage_ids: list[str]) -> None:
        table = self._open()
        if table is None or not passage_ids:
            return
        quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in passage_ids)
        table.delete(f"passage_id IN ({quoted})")
        self._flat = None

    def search(self, vector: np.ndarray, limit: int, corpus: str = "all") -> list[tuple[str, float]]:
        """(passage id, best sentence similarity) for the passages of the nearest sentences, best first."""
        if self._flat is not None:
            best: dict[str, float] = {}
            for pid, score in self._flat.search(vector, limit, corpus):
                best.setdefault(pid, score)
            return list(best.items())
        table = self._open()
        if table is None:
            return []
        query = table.search(np.asarray(vector, dtype=np.float32)).metric("cosine")
        if corpus != "all":
            if corpus not in CORPORA:
                raise ValueError(f"unknown corpus {corpus!r}")
            query = query.where(f"corpus = '{corpus}'", prefilter=True)
        rows = query.select(["passage_id", "_distance"]).limit(limit).to_arrow()
        nearest: dict[str, float] = {}
        for pid, distance in zip(rows["passage_id"].to_pylist(), rows["_distance"].to_pylist()):
            nearest.setdefault(pid, 1.0 - float(distance))  # rows come nearest first
        return list(nearest.items())
