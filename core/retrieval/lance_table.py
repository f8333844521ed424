"""What the passage table and the sentence table share: one LanceDB table that records its embedder.

Both tables keep the embedding model and dimension in the schema metadata, key their rows by a
passage id column, carry each passage's content hash, and may hold their vectors in memory
(`FlatVectors`) for an exact scan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from core.retrieval.documents import CORPORA
from core.retrieval.flat import FlatVectors

if TYPE_CHECKING:
    from lancedb.table import Table

# Below this many vectors an exact in-memory scan is cheap enough to run inline (no thread hop).
INLINE_ROWS = 20_000


def vector_schema(fields: list[pa.Field], model_name: str, dim: int) -> pa.Schema:
    """`fields` plus a `vector` column of `dim` floats; the model and dimension in the metadata."""
    return pa.schema(
        [*fields, pa.field("vector", pa.list_(pa.float32(), dim))],
        metadata={"embedding_model": model_name, "embedding_dim": str(dim)},
    )


def id_filter(column: str, ids: list[str]) -> str:
    """A LanceDB filter for rows whose `column` is one of `ids` (quoted for SQL)."""
    quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in ids)
    return f"{column} IN ({quoted})"


def corpus_filter(corpus: str) -> str | None:
    """The filter for one corpus, None for "all"; ValueError for an unknown one."""
    if corpus == "all":
        return None
    if corpus not in CORPORA:
        raise ValueError(f"unknown corpus {corpus!r}")
    return f"corpus = '{corpus}'"


class LanceTable:
    """One named table in an open LanceDB connection, opened lazily.

    Args:
        db: an open LanceDB connection.
        name: table name.
        id_column: the column holding the passage id.
    """

    def __init__(self, db, name: str, id_column: str):
        self._db = db
        self._name = name
        self._id_column = id_column
        self._table: Table | None = None
        self._flat: FlatVectors | None = None

    def _open(self):
        if self._table is None:
            try:
                self._table = self._db.open_table(self._name)
            except ValueError:
                return None
        return self._table

    def exists(self) -> bool:
        return self._open() is not None

    def recorded_model(self) -> tuple[str, int] | None:
        """(model name, dimension) the table was built with, or None when there is no table."""
        table = self._open()
        if table is None:
            return None
        meta = table.schema.metadata or {}
        model = meta.get(b"embedding_model", b"?").decode()
        dim = int(meta.get(b"embedding_dim", b"0").decode() or 0)
        return model, dim

    @property
    def in_memory(self) -> bool:
        """True when vector search is a small in-memory scan (cheap enough to run inline)."""
        return self._flat is not None and len(self._flat) <= INLINE_ROWS

    def hashes(self) -> dict[str, str]:
        """passage id -> content hash of every stored row."""
        table = self._open()
        if table is None:
            return {}
        rows = table.search().select([self._id_column, "content_hash"]).limit(None).to_arrow()
        return dict(zip(rows[self._id_column].to_pylist(), rows["content_hash"].to_pylist()))

    def _read_flat(self, table) -> FlatVectors:
        return FlatVectors.from_arrow(
            table.search().select([self._id_column, "corpus", "vector"]).limit(None).to_arrow(), self._id_column
        )
