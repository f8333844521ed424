"""What a start reads from the LanceDB tables, saved once per table version and read back without LanceDB.

A serving process reads the same things from the passage and sentence tables at every start: the
embedding model each was built with, every passage's content hash, the row count, whether there is
an ANN index, and (below the ANN threshold) every vector, for the exact in-memory scan. Importing
LanceDB alone is ~0.9 s of a 3 s warm start on these machines (its generated `lance_namespace` REST
client builds 366 pydantic validators at import), so those reads are saved in one `.npz` (in the
LanceDB folder's `.state/`) and a start whose tables have not changed since reads that file instead.

"Not changed" is told without LanceDB from the tables' folders: every commit to a Lance dataset
adds a manifest file to `<table>.lance/_versions/` (Lance's on-disk format) and new files to its
other folders, so the listing of `_versions` (names, sizes, modification times) and the modification
times of the table's folders change with every write, whichever process makes it. The state file's
name carries a hash of them (`stamp`); a start that finds no file for the current stamp opens
LanceDB as before and saves a new one, kept only when the stamp was the same before and after the
reads, which open the tables anew (an open LanceDB table keeps the version it was opened at: a
retriever started on a half-built table would read, and save, that version again; lance_table.py).
A table folder that cannot be listed gives no stamp, and so LanceDB.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import structlog

from core.retrieval.flat import FlatVectors

log = structlog.get_logger(__name__)

# 2: the reads open the tables anew; a state of 1 may hold a half-built table (its sentence vectors in
# part) under the stamp of the whole one, so none is read: the first start after reads LanceDB once
FORMAT = "fuzi-table-state-2"


@dataclass(frozen=True)
class TableState:
    """One table as a start reads it. `exists` False: the table is absent (nothing else is set)."""

    exists: bool
    model: tuple[str, int] | None = None
    hashes: dict[str, str] | None = None
    count: int = 0
    ann: bool = False
    flat: FlatVectors | None = None


def stamp(folder: Path, tables: list[str]) -> str | None:
    """sha256 over the version listings and folder times of `tables` in the LanceDB `folder` (an
    absent table counts as absent); None when a table folder cannot be listed."""
    digest = hashlib.sha256(f"{FORMAT}\n".encode())
    for name in tables:
        root = folder / f"{name}.lance"
        digest.update(f"[{name}]\n".encode())
        if not root.exists():
            digest.update(b"absent\n")
            continue
        try:
            for entry in sorted(os.scandir(root), key=lambda e: e.name):
                digest.update(f"{entry.name}\t{entry.stat().st_mtime_ns}\n".encode())
            for entry in sorted(os.scandir(root / "_versions"), key=lambda e: e.name):
                st = entry.stat()
                digest.update(f"_versions/{entry.name}\t{st.st_size}\t{st.st_mtime_ns}\n".encode())
        except OSError:
            return None
    return digest.hexdigest()


def state_path(folder: Path, tables: list[str], current: str) -> Path:
    return folder / ".state" / f"state.{'+'.join(tables)}.{current[:32]}.npz"


def save(path: Path, states: dict[str, TableState]) -> None:
    """Write atomically (temporary file, then rename) and delete older state files of these tables."""
    arrays: dict[str, np.ndarray] = {"format": np.array(FORMAT)}
    for name, state in states.items():
        arrays[f"{name}.exists"] = np.array(state.exists)
        if not state.exists:
            continue
        model, dim = state.model or ("", 0)
        hashes = state.hashes or {}
        arrays[f"{name}.model"] = np.array(model)
        arrays[f"{name}.dim"] = np.array(dim)
        arrays[f"{name}.count"] = np.array(state.count)
        arrays[f"{name}.ann"] = np.array(state.ann)
        arrays[f"{name}.hash_ids"] = np.array(list(hashes), dtype=str)
        arrays[f"{name}.hash_values"] = np.array(list(hashes.values()), dtype=str)
        if state.flat is not None:
            arrays[f"{name}.flat_ids"] = np.array(state.flat.ids, dtype=str)
            arrays[f"{name}.flat_corpus"] = np.asarray(state.flat.corpus, dtype=str)
            arrays[f"{name}.flat_matrix"] = state.flat.matrix
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)  # type: ignore[arg-type]  # numpy stubs: a key could be "allow_pickle"
    os.replace(tmp, path)
    prefix = path.name.rsplit(".", 2)[0]  # state.<tables>
    for old in path.parent.glob(f"{prefix}.*.npz"):
        if old != path:
            old.unlink(missing_ok=True)


def load(path: Path, tables: list[str]) -> dict[str, TableState] | None:
    """The states saved at `path`, or None when there is no such file or it cannot be read."""
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["format"]) != FORMAT:
                return None
            return {name: _state(data, name) for name in tables}
    except (OSError, ValueError, KeyError) as exc:
        log.warning("table_state_unreadable", reason=type(exc).__name__)
        return None


def _state(data, name: str) -> TableState:
    if not bool(data[f"{name}.exists"]):
        return TableState(exists=False)
    flat = None
    if f"{name}.flat_ids" in data:
        flat = FlatVectors(
            data[f"{name}.flat_ids"].tolist(), data[f"{name}.flat_corpus"].tolist(), data[f"{name}.flat_matrix"]
        )
    return TableState(
        exists=True,
        model=(str(data[f"{name}.model"]), int(data[f"{name}.dim"])),
        hashes=dict(zip(data[f"{name}.hash_ids"].tolist(), data[f"{name}.hash_values"].tolist())),
        count=int(data[f"{name}.count"]),
        ann=bool(data[f"{name}.ann"]),
        flat=flat,
    )
