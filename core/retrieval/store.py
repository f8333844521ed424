"""LanceDB table of passages: vector, text and metadata in one row, cosine distance.

The table records which embedding model and dimension built it (schema metadata); opening it with
another embedder is refused with a message to run `fuzi index --rebuild`. All methods are blocking:
async callers go through `asyncio.to_thread`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa

from core.retrieval.documents import CORPORA, Passage

TABLE = "passages"
_COLUMNS = ["id", "corpus", "ref", "title", "text", "meta", "content_hash"]


class IndexMismatchError(Exception):
    """The table was built with another embedding model or dimension."""


class IndexMissingError(Exception):
    """No passages have been indexed yet."""


def _schema(model_name: str, dim: int) -> pa.Schema:
    fields = [pa.field(name, pa.string()) for name in _COLUMNS]
    fields.append(pa.field("vector", pa.list_(pa.float32(), dim)))
    return pa.schema(fields, metadata={"embedding_model": model_name, "embedding_dim": str(dim)})


class PassageStore:
    """One LanceDB table of passages under `path` (normally `$FUZI_HOME/lancedb`).

    Args:
        path: the LanceDB folder.
        table: table name.
    """

    def __init__(self, path: Path | str, table: str = TABLE):
        import lancedb

        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._db = lancedb.connect(str(self.path))
        self._name = table
        self._table = None

    # ------------------------------------------------------------------ lifecycle
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

    def check_compatible(self, model_name: str, dim: int) -> None:
        """Raise IndexMismatchError when the table was built by another model or dimension."""
        recorded = self.recorded_model()
        if recorded is None:
            return
        if recorded != (model_name, dim):
            raise IndexMismatchError(
                f"the index was built with {recorded[0]} ({recorded[1]} dims) but the configured embedder is "
                f"{model_name} ({dim} dims); run `fuzi index --rebuild`"
            )

    def create(self, model_name: str, dim: int) -> None:
        """Create (or replace) an empty table for vectors of this model and dimension."""
        self._table = self._db.create_table(self._name, schema=_schema(model_name, dim), mode="overwrite")

    # ------------------------------------------------------------------ writes
    def upsert(self, passages: list[Passage], vectors: np.ndarray) -> None:
        """Insert or replace rows by id."""
        if not passages:
            return
        table = self._require()
        dim = table.schema.field("vector").type.list_size
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(passages), dim):
            raise IndexMismatchError(f"vectors have shape {vectors.shape}, the table holds {dim} dims")
        data = pa.table(
            {
                "id": [p.id for p in passages],
                "corpus": [p.corpus for p in passages],
                "ref": [p.ref for p in passages],
                "title": [p.title for p in passages],
                "text": [p.text for p in passages],
                "meta": [json.dumps(p.meta, ensure_ascii=False) for p in passages],
                "content_hash": [p.content_hash for p in passages],
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim),
            },
            schema=table.schema,
        )
        table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def delete(self, ids: list[str]) -> None:
        """Remove rows by id (ids are validated passage ids, quoted for the SQL filter)."""
        if not ids:
            return
        quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in ids)
        self._require().delete(f"id IN ({quoted})")

    # ------------------------------------------------------------------ reads
    def count(self) -> int:
        table = self._open()
        return 0 if table is None else table.count_rows()

    def hashes(self) -> dict[str, str]:
        """id -> content hash of every stored row."""
        table = self._open()
        if table is None:
            return {}
        rows = table.search().select(["id", "content_hash"]).limit(None).to_arrow()
        return dict(zip(rows["id"].to_pylist(), rows["content_hash"].to_pylist()))

    def all_passages(self) -> list[Passage]:
        """Every stored passage without its vector (to rebuild the keyword index on start)."""
        table = self._open()
        if table is None:
            return []
        rows = table.search().select(_COLUMNS).limit(None).to_arrow().to_pylist()
        return [_passage(r) for r in rows]

    def vector_search(self, vector: np.ndarray, limit: int, corpus: str = "all") -> list[tuple[Passage, float]]:
        """Nearest passages by cosine distance, with their cosine similarity, best first."""
        query = self._require().search(np.asarray(vector, dtype=np.float32)).metric("cosine")
        if corpus != "all":
            if corpus not in CORPORA:
                raise ValueError(f"unknown corpus {corpus!r}")
            query = query.where(f"corpus = '{corpus}'", prefilter=True)
        rows = query.select([*_COLUMNS, "_distance"]).limit(limit).to_list()
        return [(_passage(r), 1.0 - float(r["_distance"])) for r in rows]

    def _require(self):
        table = self._open()
        if table is None:
            raise IndexMissingError("no passages are indexed yet; run `fuzi index`")
        return table


def _passage(row: dict) -> Passage:
    return Passage(
        id=row["id"],
        ref=row["ref"],
        corpus=row["corpus"],
        title=row["title"],
        text=row["text"],
        meta=json.loads(row["meta"] or "{}"),
    )
