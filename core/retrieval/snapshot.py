"""What the retriever needs besides vectors, saved once per table content and loaded at start.

A snapshot is a folder holding the keyword index (bm25s's files, memory-mapped at load), the
verbatim index and the passages (as JSON rows decoded on demand). Its name carries a fingerprint of the table's content — sha256 over every (id,
content hash) pair, sorted, plus the snapshot format and tokenizer — so a changed, added or removed
passage gives another name and the stale snapshot is never read: the retriever rebuilds from the
table and saves a new one. Loading is `np.load` of a few arrays: no tokenising, no JSON of 100,000
rows, no jieba dictionary. A snapshot is written into a temporary folder and renamed into place.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import structlog

from core.retrieval.documents import Passage
from core.retrieval.keyword import KeywordIndex, VerbatimIndex

log = structlog.get_logger(__name__)

FORMAT = "fuzi-retrieval-snapshot-3"  # 2: a folder, the keyword index in bm25s's files; 3: variant characters folded


def fingerprint(hashes: dict[str, str], *, tokenizer: str) -> str:
    """sha256 over the sorted (id, content hash) pairs, the snapshot format and the tokenizer."""
    digest = hashlib.sha256(f"{FORMAT}\n{tokenizer}\n".encode())
    for passage_id in sorted(hashes):
        digest.update(f"{passage_id}\t{hashes[passage_id]}\n".encode())
    return digest.hexdigest()


class PassageTable:
    """Passages by id, in corpus order, decoded from compact JSON rows only when asked for.

    Args:
        ids: passage ids in corpus order.
        blob: UTF-8 JSON rows `[corpus, ref, title, text, meta]`, back to back.
        offsets: byte offsets of each row in `blob` (len(ids) + 1 of them).
    """

    def __init__(self, ids: list[str], blob: bytes, offsets: np.ndarray):
        self.order = ids
        self._pos = {passage_id: i for i, passage_id in enumerate(ids)}
        self._blob = blob
        self._offsets = offsets

    @classmethod
    def from_passages(cls, passages: list[Passage]) -> PassageTable:
        rows = [json.dumps([p.corpus, p.ref, p.title, p.text, p.meta], ensure_ascii=False).encode() for p in passages]
        offsets = np.concatenate([[0], np.cumsum([len(r) for r in rows], dtype=np.int64)]).astype(np.int64)
        return cls([p.id for p in passages], b"".join(rows), offsets)

    def __len__(self) -> int:
        return len(self.order)

    @functools.cached_property
    def books(self) -> frozenset[str]:
        """The ids of the books the table holds (those whose corpus file was there when it was built)."""
        return frozenset(pid.split(":", 1)[0] for pid in self.order)

    def __contains__(self, passage_id: object) -> bool:
        return passage_id in self._pos

    def __iter__(self) -> Iterator[str]:
        return iter(self.order)

    def position(self, passage_id: str) -> int:
        return self._pos[passage_id]

    def __getitem__(self, passage_id: str) -> Passage:
        i = self._pos[passage_id]
        corpus, ref, title, text, meta = json.loads(self._blob[self._offsets[i] : self._offsets[i + 1]])
        return Passage(passage_id, ref, corpus, title, text, meta)

    def get(self, passage_id: str, default=None) -> Passage | None:
        return self[passage_id] if passage_id in self._pos else default

    def texts(self) -> _Texts:
        return _Texts(self)


class _Texts:
    """id -> text view of a PassageTable (what VerbatimIndex.aligned reads)."""

    def __init__(self, table: PassageTable):
        self._table = table

    def get(self, passage_id: str, default: str = "") -> str:
        p = self._table.get(passage_id)
        return default if p is None else p.text


class Snapshot:
    """The keyword index, verbatim index and passages of one table content."""

    def __init__(self, keyword: KeywordIndex, verbatim: VerbatimIndex, passages: PassageTable):
        self.keyword = keyword
        self.verbatim = verbatim
        self.passages = passages

    @classmethod
    def build(cls, passages: list[Passage], *, tokenizer: str = "bigram") -> Snapshot:
        """From passages in corpus order (tokenises everything)."""
        table = PassageTable.from_passages(passages)
        return cls(KeywordIndex(passages, tokenizer=tokenizer), VerbatimIndex(passages, table.texts()), table)

    def save(self, path: Path, *, replaces: str | None = None) -> None:
        """Write atomically (a temporary folder, then rename).

        Args:
            path: the snapshot folder.
            replaces: a glob of older snapshots (same folder) to delete once this one is written.
        """
        write_folder(path, self._write, replaces=replaces)

    def _write(self, folder: Path) -> None:
        folder.mkdir()
        self.keyword.save(folder)
        arrays = dict(self.verbatim.arrays())
        arrays["ps_blob"] = np.frombuffer(self.passages._blob, dtype=np.uint8)
        arrays["ps_offsets"] = self.passages._offsets
        arrays["format"] = np.array(FORMAT)
        with open(folder / "snapshot.npz", "wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]  # numpy stubs: a key could be "allow_pickle"

    @classmethod
    def load(cls, path: Path) -> Snapshot:
        """Read a snapshot written by `save`; raises OSError/ValueError/KeyError when unreadable."""
        with np.load(path / "snapshot.npz", allow_pickle=False) as data:
            if str(data["format"]) != FORMAT:
                raise ValueError(f"snapshot format {data['format']} is not {FORMAT}")
            keyword = KeywordIndex.load(path)
            table = PassageTable(keyword.ids, data["ps_blob"].tobytes(), data["ps_offsets"])
            verbatim = VerbatimIndex.from_arrays(data, keyword.ids, keyword._corpus.tolist(), table.texts())
        return cls(keyword, verbatim, table)


def write_folder(path: Path, write: Callable[[Path], None], *, replaces: str | None = None) -> None:
    """`write(folder)` fills a temporary folder beside `path`, which is then renamed into place, so a
    reader sees the old folder or the whole new one; then the other entries matching `replaces` (a glob
    in the same folder) go. Another process renaming the same content into place first is no error."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    remove(tmp)
    write(tmp)
    remove(path)  # an unreadable one of the same content
    try:
        os.replace(tmp, path)
    except OSError:
        remove(tmp)
        if not path.is_dir():
            raise
    for old in path.parent.glob(replaces) if replaces else ():
        if old != path and not old.name.endswith(".tmp"):
            remove(old)


def remove(path: Path) -> None:
    """Delete a folder (a snapshot, a saved BM25 collection) or a file (a snapshot of the format
    before 2); nothing if absent."""
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def load_or_build(store, *, tokenizer: str = "bigram", use_saved: bool = True) -> tuple[Snapshot, str]:
    """The snapshot of `store`'s current content: loaded when saved, else built from the table and
    saved. Returns (snapshot, "snapshot" | "table")."""
    from core.retrieval.documents import sort_key

    hashes = store.hashes()
    path = store.snapshot_path(fingerprint(hashes, tokenizer=tokenizer))
    if use_saved and path.exists():
        try:
            snapshot = Snapshot.load(path)
            if sorted(snapshot.keyword.ids) == sorted(hashes):
                return snapshot, "snapshot"
        except (OSError, ValueError, KeyError) as exc:
            log.warning("retrieval_snapshot_unreadable", reason=type(exc).__name__)
    passages = sorted(store.all_passages(), key=lambda p: sort_key(p.id))
    snapshot = Snapshot.build(passages, tokenizer=tokenizer)
    if use_saved and passages and len(snapshot.keyword) == len(hashes):
        try:
            snapshot.save(path, replaces=store.snapshot_glob())
        except OSError as exc:  # a read-only folder costs start-up time, not correctness
            log.warning("retrieval_snapshot_not_saved", reason=type(exc).__name__)
    return snapshot, "table"
