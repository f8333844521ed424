"""BM25 indexes saved under a fingerprint of their tokens, memory-mapped by the next process.

The gloss route's collections (core/retrieval/glosses.py: the English and modern-Chinese glosses, the
stanza and segment renderings) were built by the first English or modern-Chinese question of every
process: bm25s and scipy imported, four indexes built, 1.1–1.6 s of CPU on a busy 2-core VM with AVX2,
all of it in that question's answer. Now the first process that needs one builds it and saves it
(bm25s's own `save`, into a temporary folder renamed into place: snapshot.write_folder); later ones read it
with `SavedBM25` (the same scores, bit for bit), as a start reads the keyword route's snapshot.

The fingerprint is a sha256 over the format, the BM25 parameters and every document's tokens, so an
edited gloss or a change of how they are tokenised gives another name and a stale file is never read;
the tokens are still made (0.25 s for all the glosses there), bm25s is not imported and nothing is
indexed. A folder that cannot be written costs the build, not the answer.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from core.retrieval.keyword import SavedBM25, bm25_index
from core.retrieval.snapshot import write_folder

if TYPE_CHECKING:
    import bm25s

log = structlog.get_logger(__name__)

FORMAT = "fuzi-bm25-files-1"


def fingerprint(documents: list[list[str]], *, k1: float, b: float, dtype: str) -> str:
    """sha256 over the format, the parameters and each document's tokens, in order."""
    digest = hashlib.sha256(f"{FORMAT}\n{k1}\n{b}\n{dtype}\n".encode())
    for tokens in documents:
        digest.update(("\x1f".join(tokens) + "\n").encode())
    return digest.hexdigest()


def saved_or_built(
    documents: list[list[str]],
    *,
    folder: Path | None,
    name: str,
    k1: float = 1.5,
    b: float = 0.75,
    dtype: str = "float32",
) -> bm25s.BM25 | SavedBM25:
    """BM25 over `documents`: read from `folder`/`name`.<fingerprint> when saved there, else built and
    saved there (other `name`.* folders, earlier contents, removed). No folder, or no documents: built."""
    if folder is None or not documents:
        return bm25_index(documents, k1=k1, b=b, dtype=dtype)
    path = folder / f"{name}.{fingerprint(documents, k1=k1, b=b, dtype=dtype)[:32]}"
    if path.is_dir():
        try:
            saved = SavedBM25.load(path)
            if saved.num_docs == len(documents):
                return saved
        except (OSError, ValueError, KeyError) as exc:
            log.warning("bm25_file_unreadable", name=name, reason=type(exc).__name__)
    index = bm25_index(documents, k1=k1, b=b, dtype=dtype)
    try:
        _save(index, path, name)
    except OSError as exc:  # a read-only folder: this process keeps the index it built
        log.warning("bm25_file_not_saved", name=name, reason=type(exc).__name__)
    return index


def _save(index: bm25s.BM25, path: Path, name: str) -> None:
    write_folder(path, lambda folder: index.save(str(folder), show_progress=False), replaces=f"{name}.*")
