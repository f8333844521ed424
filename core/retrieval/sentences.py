"""Sentence vectors: each sentence of a multi-sentence passage embedded on its own.

A long paragraph's vector dilutes the meaning of any one of its sentences, so a paraphrase of one
line can miss the paragraph. Sentences live in a second LanceDB table (`<table>_sentences`, the
passage's id and content hash on every row); results stay passage-level: the retriever maps
sentence hits back to their passages (docs/retrieval.md has the measurement).
"""

from __future__ import annotations

import re

import numpy as np

from core.language.text import cjk_count
from core.retrieval.documents import Passage, content_hash
from core.retrieval.errors import IndexMismatchError
from core.retrieval.lance_table import Connection, LanceTable, corpus_filter, id_filter, vector_schema

_SENTENCE = re.compile(r"[^。！？；\n]+[。！？；]?")
MIN_CHARS = 4


def split_sentences(passage: Passage) -> list[str]:
    """The passage's sentences of ≥ 4 CJK characters; empty when it has only one (its own vector suffices)."""
    sentences = [s.strip() for s in _SENTENCE.findall(passage.text) if cjk_count(s) >= MIN_CHARS]
    return sentences if len(sentences) > 1 else []


class SentenceStore(LanceTable):
    """The sentence table next to the passage table (same LanceDB folder, same embedder).

    Args:
        connection: the passage store's LanceDB `Connection`.
        name: table name.
    """

    def __init__(self, connection: Connection, name: str):
        super().__init__(connection, name, "passage_id")

    def load_flat(self) -> bool:
        """Hold the sentence vectors in memory for exact search; True when the table exists."""
        if self._state is not None and (self._state.flat is not None or not self._state.exists):
            self._flat = self._state.flat
            return self._flat is not None
        table = self._open()
        self._flat = None if table is None else self._read_flat(table)
        return self._flat is not None

    def create(self, model_name: str, dim: int) -> None:
        import pyarrow as pa  # writes only, as in store.py

        fields = [pa.field(name, pa.string()) for name in ("passage_id", "corpus", "content_hash")]
        schema = vector_schema(fields, model_name, dim)
        self._state = None
        self._table = self._db.create_table(self._name, schema=schema, mode="overwrite")
        self._flat = None

    def replace(self, passages: list[Passage], sentences: list[list[str]], vectors: np.ndarray) -> None:
        """Delete the sentence rows of `passages` and insert the new ones (vectors in sentence order)."""
        table = self._writing()
        self._flat = None
        self.delete([p.id for p in passages])
        ids = [p.id for p, ss in zip(passages, sentences) for _ in ss]
        if not ids:
            return
        dim = table.schema.field("vector").type.list_size
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(ids), dim):
            raise IndexMismatchError(f"sentence vectors have shape {vectors.shape}, expected {(len(ids), dim)}")
        import pyarrow as pa

        corpus = {p.id: p.corpus for p in passages}
        hashes = {p.id: content_hash(p) for p in passages}
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
        table = self._writing()
        if table is None or not passage_ids:
            return
        table.delete(id_filter("passage_id", passage_ids))
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
        where = corpus_filter(corpus)
        if where is not None:
            query = query.where(where, prefilter=True)
        rows = query.select(["passage_id", "_distance"]).limit(limit).to_arrow()
        nearest: dict[str, float] = {}
        for pid, distance in zip(rows["passage_id"].to_pylist(), rows["_distance"].to_pylist()):
            nearest.setdefault(pid, 1.0 - float(distance))  # rows come nearest first
        return list(nearest.items())
