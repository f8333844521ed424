"""What the passage table and the sentence table share: one LanceDB table that records its embedder.

Both tables keep the embedding model and dimension in the schema metadata, key their rows by a
passage id column, carry each passage's content hash, and may hold their vectors in memory
(`FlatVectors`) for an exact scan. The LanceDB connection is made on first use (`Connection`), and
a table given its saved `TableState` (core/retrieval/table_state.py) answers a start's reads from
it; its first write forgets the state and goes to LanceDB. An open LanceDB table reads the version it
was opened at, whatever was written since through another handle: each start opens the tables again,
so a retriever started on a half-built table reads the whole table at its next start.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.books import books_in
from core.retrieval.flat import FlatVectors
from core.retrieval.table_state import TableState

if TYPE_CHECKING:
    import pyarrow as pa
    from lancedb.db import DBConnection
    from lancedb.table import Table

# Below this many vectors an exact in-memory scan is cheap enough to run inline (no thread hop).
INLINE_ROWS = 20_000


def vector_schema(fields: list[pa.Field], model_name: str, dim: int) -> pa.Schema:
    """`fields` plus a `vector` column of `dim` floats; the model and dimension in the metadata."""
    import pyarrow as pa  # only where a table is written: a start reads the saved state (table_state.py)

    return pa.schema(
        [*fields, pa.field("vector", pa.list_(pa.float32(), dim))],
        metadata={"embedding_model": model_name, "embedding_dim": str(dim)},
    )


def id_filter(column: str, ids: list[str]) -> str:
    """A LanceDB filter for rows whose `column` is one of `ids` (quoted for SQL)."""
    quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in ids)
    return f"{column} IN ({quoted})"


def corpus_filter(corpus: str) -> str | None:
    """The filter for a selection (one book, `sishu`), None for "all"; ValueError for an unknown one."""
    if corpus == "all":
        return None
    return id_filter("corpus", list(books_in(corpus)))


class Connection:
    """A LanceDB folder, connected on first use (importing LanceDB is most of a warm start's second)."""

    def __init__(self, path: Path):
        self.path = path
        self._db: DBConnection | None = None

    def get(self) -> DBConnection:
        if self._db is None:
            import lancedb

            self._db = lancedb.connect(str(self.path))
        return self._db


class LanceTable:
    """One named table of a LanceDB folder, opened lazily.

    Args:
        connection: the folder's `Connection`.
        name: table name.
        id_column: the column holding the passage id.
    """

    def __init__(self, connection: Connection, name: str, id_column: str):
        self._connection = connection
        self._name = name
        self._id_column = id_column
        self._table: Table | None = None
        self._flat: FlatVectors | None = None
        self._state: TableState | None = None  # what a start reads, saved (table_state.py); None: ask LanceDB

    @property
    def _db(self):
        return self._connection.get()

    def _open(self):
        if self._table is None:
            if not (self._connection.path / f"{self._name}.lance").exists():
                return None  # no table yet (a fresh home's first start): known without importing LanceDB
            try:
                self._table = self._db.open_table(self._name)
            except ValueError:
                return None
        return self._table

    def _forget_version(self) -> None:
        """Open the table again at the next read: an open LanceDB table stays at the version it was
        opened at and never sees the writes of another handle (another store, another process)."""
        self._table = None

    def _writing(self):
        """The table for a write: the saved state no longer describes it."""
        self._state = None
        return self._open()

    def exists(self) -> bool:
        if self._state is not None:
            return self._state.exists
        return self._open() is not None

    def recorded_model(self) -> tuple[str, int] | None:
        """(model name, dimension) the table was built with, or None when there is no table."""
        if self._state is not None:
            return self._state.model
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
        if self._state is not None:
            return dict(self._state.hashes or {})
        table = self._open()
        if table is None:
            return {}
        rows = table.search().select([self._id_column, "content_hash"]).limit(None).to_arrow()
        return dict(zip(rows[self._id_column].to_pylist(), rows["content_hash"].to_pylist()))

    def state(self, *, flat: bool) -> TableState:
        """What a start reads from this table, read from LanceDB (`flat`: with the vectors)."""
        table = self._open()
        if table is None:
            return TableState(exists=False)
        return TableState(
            exists=True,
            model=self.recorded_model(),
            hashes=self.hashes(),
            count=table.count_rows(),
            ann=self._has_ann(table),
            flat=self._read_flat(table) if flat else None,
        )

    @staticmethod
    def _has_ann(table) -> bool:
        return any("vector" in i.columns for i in table.list_indices())

    def _read_flat(self, table) -> FlatVectors:
        return FlatVectors.from_arrow(
            table.search().select([self._id_column, "corpus", "vector"]).limit(None).to_arrow(), self._id_column
        )
