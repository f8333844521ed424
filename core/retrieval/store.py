"""LanceDB table of passages: vector, text and metadata in one row, cosine distance.

The table records which embedding model and dimension built it (schema metadata); opening it with
another embedder is refused with a message to run `fuzi index --rebuild`. All methods are blocking:
async callers go through `asyncio.to_thread`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import structlog

from core.retrieval import table_state
from core.retrieval.documents import Passage, content_hash
from core.retrieval.errors import IndexMismatchError, IndexMissingError
from core.retrieval.lance_table import Connection, LanceTable, corpus_filter, id_filter, vector_schema
from core.retrieval.sentences import SentenceStore

log = structlog.get_logger(__name__)

TABLE = "passages"
_COLUMNS = ["id", "corpus", "ref", "title", "text", "meta", "content_hash"]


class PassageStore(LanceTable):
    """One LanceDB table of passages under `path` (normally `$FUZI_HOME/lancedb`).

    Vector search is exact (a flat scan) until the table holds `ann_min_rows` passages; from there
    `ensure_ann_index` builds an IVF_PQ index and searches probe `nprobes` partitions and re-rank
    `refine_factor × limit` candidates by exact distance (recall against the flat scan is measured
    in docs/retrieval.md).

    Args:
        path: the LanceDB folder.
        table: table name.
        ann_min_rows: table size from which an ANN index pays (0: never build one).
        nprobes: IVF partitions searched per query when the table has an ANN index.
        refine_factor: candidates re-scored exactly, as a multiple of the limit.
    """

    def __init__(
        self,
        path: Path | str,
        table: str = TABLE,
        *,
        ann_min_rows: int = 200_000,
        nprobes: int = 20,
        refine_factor: int = 5,
    ):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        super().__init__(Connection(self.path), table, "id")
        self.ann_min_rows = ann_min_rows
        self.nprobes = nprobes
        self.refine_factor = refine_factor
        self._ann: bool | None = None
        self._sentences: SentenceStore | None = None

    # ------------------------------------------------------------------ lifecycle
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
        import pyarrow as pa  # writes only: a start imports neither pyarrow nor LanceDB (table_state.py)

        fields = [pa.field(name, pa.string()) for name in _COLUMNS]
        self._state = None
        self._table = self._db.create_table(self._name, schema=vector_schema(fields, model_name, dim), mode="overwrite")
        self._ann = False
        self._flat = None

    @property
    def sentences(self) -> SentenceStore:
        """The sentence-vector table of this passage table (core/retrieval/sentences.py)."""
        if self._sentences is None:
            self._sentences = SentenceStore(self._connection, f"{self._name}_sentences")
        return self._sentences

    # ------------------------------------------------------------------ saved state (table_state.py)
    def _tables(self) -> list[str]:
        return [self._name, self.sentences._name]

    def load_state(self) -> bool:
        """Answer the next reads of both tables from the state saved for their current versions;
        True when there was one (False: they read LanceDB, as without a saved state)."""
        current = table_state.stamp(self.path, self._tables())
        states = (
            table_state.load(table_state.state_path(self.path, self._tables(), current), self._tables())
            if current
            else None
        )
        for table in (self, self.sentences):
            table._state = states[table._name] if states else None
            table._flat = None
            table._forget_version()
        self._ann = None
        return states is not None

    def save_state(self) -> None:
        """Read both tables from LanceDB and save what a start reads, kept only when no write came
        in between (the version listing is the same before and after the reads). The reads open the
        tables anew, at the version `before` names or a later one; this store keeps serving the
        version it had open."""
        before = table_state.stamp(self.path, self._tables())
        if before is None:
            return
        serving = self._table, self.sentences._table
        for table in (self, self.sentences):
            table._state = None
            table._forget_version()
        try:
            passages = self._open()
            scanned = passages is None or not (
                passages.count_rows() >= self.ann_min_rows > 0 and self._has_ann(passages)
            )
            states = {self._name: self.state(flat=scanned), self.sentences._name: self.sentences.state(flat=True)}
        finally:
            self._table, self.sentences._table = serving
        if table_state.stamp(self.path, self._tables()) != before:
            return
        try:
            table_state.save(table_state.state_path(self.path, self._tables(), before), states)
        except OSError as exc:  # a read-only folder costs start-up time, not correctness
            log.warning("table_state_not_saved", reason=type(exc).__name__)

    def load_flat(self) -> bool:
        """Hold the vectors in memory for exact search when the table is below `ann_min_rows`
        (or has no ANN index); True when loaded. Writes through this store drop them again."""
        self._flat = None
        state = self._state
        if state is not None and (state.flat is not None or not state.exists):
            if not state.exists or (state.count >= self.ann_min_rows > 0 and state.ann):
                return False
            self._flat = state.flat
            return True
        table = self._open()
        if table is None or (table.count_rows() >= self.ann_min_rows > 0 and self.has_ann_index()):
            return False
        self._flat = self._read_flat(table)
        return True

    def has_ann_index(self) -> bool:
        """Whether the vector column has an ANN index (cached after the first look)."""
        if self._state is not None:
            return self._state.ann
        if self._ann is None:
            table = self._open()
            self._ann = table is not None and self._has_ann(table)
        return self._ann

    def ensure_ann_index(self, *, force: bool = False) -> bool:
        """Build (or rebuild) the IVF_PQ index when the table is big enough; True when it has one.

        Rebuilding after a write keeps new rows searchable through the index (LanceDB also searches
        unindexed rows exactly, so a stale index costs speed, not results).
        """
        table = self._require()
        rows = table.count_rows()
        if not force and (self.ann_min_rows <= 0 or rows < self.ann_min_rows):
            return self.has_ann_index()
        self._state = None
        from lancedb.index import IvfPq

        partitions = max(16, min(1024, int(rows**0.5)))
        dim = table.schema.field("vector").type.list_size
        sub_vectors = next(n for n in (48, 32, 24, 16, 8, 4, 2, 1) if dim % n == 0)
        table.create_index(
            "vector",
            config=IvfPq(distance_type="cosine", num_partitions=partitions, num_sub_vectors=sub_vectors),
            replace=True,
        )
        self._ann = True
        return True

    # ------------------------------------------------------------------ writes
    def upsert(self, passages: list[Passage], vectors: np.ndarray) -> None:
        """Insert or replace rows by id."""
        if not passages:
            return
        table = self._require(writing=True)
        dim = table.schema.field("vector").type.list_size
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(passages), dim):
            raise IndexMismatchError(f"vectors have shape {vectors.shape}, the table holds {dim} dims")
        import pyarrow as pa

        data = pa.table(
            {
                "id": [p.id for p in passages],
                "corpus": [p.corpus for p in passages],
                "ref": [p.ref for p in passages],
                "title": [p.title for p in passages],
                "text": [p.text for p in passages],
                "meta": [json.dumps(p.meta, ensure_ascii=False) for p in passages],
                "content_hash": [content_hash(p) for p in passages],
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim),
            },
            schema=table.schema,
        )
        table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)
        self._flat = None

    def delete(self, ids: list[str]) -> None:
        """Remove rows by id (ids are validated passage ids, quoted for the SQL filter)."""
        if not ids:
            return
        self._require(writing=True).delete(id_filter("id", ids))
        self._flat = None

    # ------------------------------------------------------------------ reads
    def count(self) -> int:
        if self._state is not None:
            return self._state.count
        table = self._open()
        return 0 if table is None else table.count_rows()

    def snapshot_path(self, fingerprint: str) -> Path:
        """Where the retriever's snapshot for this table content lives (inside the LanceDB folder)."""
        return self.path / ".snapshots" / f"{self._name}.{fingerprint[:32]}"

    def gloss_vectors_path(self, fingerprint: str) -> Path:
        """Where the gloss vectors for this fingerprint live (gloss_vectors.py; inside the LanceDB folder)."""
        return self.path / ".glosses" / f"{self._name}.{fingerprint[:32]}.npz"

    def gloss_bm25_dir(self) -> Path:
        """Where the gloss route's BM25 collections are saved (bm25_files.py; inside the LanceDB folder)."""
        return self.path / ".glosses" / f"{self._name}.bm25"

    def gloss_vectors_saved(self) -> list[Path]:
        """The gloss vectors saved for this table, whatever their fingerprint."""
        return sorted((self.path / ".glosses").glob(f"{self.snapshot_glob()}.npz"))

    def snapshot_glob(self) -> str:
        return f"{self._name}.*"

    def all_passages(self) -> list[Passage]:
        """Every stored passage without its vector (to rebuild the keyword index on start)."""
        table = self._open()
        if table is None:
            return []
        rows = table.search().select(_COLUMNS).limit(None).to_arrow().to_pylist()
        return [_passage(r) for r in rows]

    def vector_search(self, vector: np.ndarray, limit: int, corpus: str = "all") -> list[tuple[str, float]]:
        """Ids of the nearest passages by cosine distance, with their cosine similarity, best first.

        Only the id and distance columns are read: the retriever holds the texts already.
        """
        where = corpus_filter(corpus)
        if self._flat is not None:
            return self._flat.search(vector, limit, corpus)
        query = self._require().search(np.asarray(vector, dtype=np.float32)).metric("cosine")
        if self.has_ann_index():
            query = query.nprobes(self.nprobes).refine_factor(self.refine_factor)
        if where is not None:
            query = query.where(where, prefilter=True)
        rows = query.select(["id", "_distance"]).limit(limit).to_arrow()
        return list(zip(rows["id"].to_pylist(), (1.0 - rows["_distance"].to_numpy()).tolist()))

    def _require(self, *, writing: bool = False):
        table = self._writing() if writing else self._open()
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
