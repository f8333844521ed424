"""Gloss vectors: each passage's English and modern-Chinese gloss (glosses.py) embedded on its own.

An English question or a modern-Chinese paraphrase is far, for the small embedder, from the classical
text it describes, and close to a plain gloss of it, written in the reader's own language and
register. `fuzi index` embeds every gloss of `data/glosses` and every segment rendering of the long
prose chapters (not the poems' stanza renderings) as its passage
is embedded (the passage prefix; a poem's title before its Chinese gloss, as the gloss route indexes
it) and saves the matrix next to the table (`<lancedb>/.glosses/<table>.<fingerprint>.npz`). The
fingerprint is a sha256 over the embedder's model and dimension and every text embedded, so an edited
gloss or another model gives another name and a stale file is never read; a rebuild with the same
glosses keeps the file. A start without it serves as before.

For the queries the gloss route serves (`GlossIndex.wants`), the vector route scores a passage by the
best of its own, its sentences' and its glosses' cosine with the query (docs/retrieval.md). They are
loaded from the gloss route's own read of the glosses when a query first runs that route
(`GlossIndex.vectors`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import structlog

from core.retrieval import glosses as gloss_files
from core.retrieval.asks import ASK_DIR, load_asks
from core.retrieval.documents import Passage, embedding_text, sort_key
from core.retrieval.flat import FlatVectors
from core.retrieval.glosses import Gloss, load_glosses, load_stanzas
from core.retrieval.store import PassageStore

log = structlog.get_logger(__name__)

FORMAT = "fuzi-gloss-vectors-1"


@dataclass(frozen=True)
class _Rows:
    """The rows to embed: every glossed passage's English gloss, then its Chinese gloss, in corpus
    order; then each long prose chapter's segment renderings, English and Chinese (segments.py); then,
    the last `asks` rows, each glossed passage's asks (asks.py)."""

    ids: list[str]
    corpus: list[str]
    texts: list[str]
    asks: int = 0

    @classmethod
    def of(
        cls,
        passages: Iterable[Passage],
        glosses: dict[str, Gloss],
        parts: dict[str, list[Gloss]],
        asks: dict[str, tuple[str, ...]] | None = None,
    ) -> _Rows:
        ordered = sorted(passages, key=lambda p: sort_key(p.id))
        chosen = [p for p in ordered if p.id in glosses]
        # the Chinese gloss is embedded as its passage is (a poem's title first), as the gloss route indexes it
        zh = [embedding_text(Passage(p.id, p.ref, p.corpus, p.title, glosses[p.id].zh)) for p in chosen]
        ids, corpus = [p.id for p in chosen], [p.corpus for p in chosen]
        rows = cls(ids + ids, corpus + corpus, [glosses[p.id].en for p in chosen] + zh)
        for p in ordered:  # not a poem's stanzas: on dev they moved as many questions down as up
            for g in parts.get(p.id, []) if p.corpus != "shijing" else []:
                rows.ids.extend((p.id, p.id))
                rows.corpus.extend((p.corpus, p.corpus))
                rows.texts.extend((g.en, embedding_text(Passage(p.id, p.ref, p.corpus, p.title, g.zh))))
        asked = [(p, ask) for p in chosen for ask in (asks or {}).get(p.id, ())]
        rows.ids.extend(p.id for p, _ in asked)
        rows.corpus.extend(p.corpus for p, _ in asked)
        rows.texts.extend(embedding_text(Passage(p.id, p.ref, p.corpus, p.title, ask)) for p, ask in asked)
        return cls(rows.ids, rows.corpus, rows.texts, len(asked))

    def fingerprint(self, model_name: str, dim: int) -> str:
        """sha256 over the format, the model, the dimension and every (id, text) row."""
        digest = hashlib.sha256(f"{FORMAT}\n{model_name}\n{dim}\n".encode())
        for pid, text in zip(self.ids, self.texts):
            digest.update(f"{pid}\t{text}\n".encode())
        return digest.hexdigest()


class GlossVectors:
    """The English and Chinese gloss vectors of the glossed passages, and (the last `asks` rows) their
    asks; `search` maps rows to passages."""

    def __init__(self, ids: list[str], corpus: list[str], matrix: np.ndarray, asks: int = 0):
        n = len(ids) - asks
        self._flat = FlatVectors(ids[:n], corpus[:n], matrix[:n])
        self._asks = FlatVectors(ids[n:], corpus[n:], matrix[n:]) if asks else None

    def __len__(self) -> int:
        return len(self._flat) + (len(self._asks) if self._asks is not None else 0)

    def search(
        self, vector: np.ndarray, limit: int, corpus: str = "all", *, asks: bool = False
    ) -> list[tuple[str, float]]:
        """(passage id, best gloss cosine), best first, at most `limit` passages; with `asks` (a Chinese
        query), a passage's asks count as its glosses do."""
        hits = self._flat.search(vector, 2 * limit, corpus)
        if asks and self._asks is not None:
            hits = sorted(hits + self._asks.search(vector, 2 * limit, corpus), key=lambda h: -h[1])
        best: dict[str, float] = {}
        for pid, score in hits:
            best.setdefault(pid, score)  # rows come best first: a passage's first row is its best
        return list(best.items())[:limit]

    @classmethod
    def load(
        cls,
        store: PassageStore,
        passages: Iterable[Passage],
        glosses: dict[str, Gloss],
        parts: dict[str, list[Gloss]],
        asks: dict[str, tuple[str, ...]],
        model_name: str,
        dim: int,
    ) -> GlossVectors | None:
        """The saved vectors for these passages' `glosses`, segment `parts` and `asks` (as read for the
        gloss route: `GlossIndex.vectors`) and this model, else None."""
        rows = _Rows.of(passages, glosses, parts, asks)
        if not rows.ids:
            return None
        path = store.gloss_vectors_path(rows.fingerprint(model_name, dim))
        try:
            with np.load(path) as data:
                matrix = data["vectors"]
        except (OSError, KeyError, ValueError):
            log.warning("gloss_vectors_missing", hint="run `fuzi index`")
            return None
        if matrix.shape != (len(rows.ids), dim):
            log.warning("gloss_vectors_malformed", shape=matrix.shape, hint="run `fuzi index`")
            return None
        return cls(rows.ids, rows.corpus, matrix, rows.asks)

    @staticmethod
    def maybe_stale(store: PassageStore) -> bool:
        """Whether a gloss file may be newer than the saved vectors (an upgrade edited or added some),
        told from modification times alone (a start pays no read and no sha256); `build` then decides
        exactly. False when there are no glosses."""
        files = list(gloss_files.GLOSS_DIR.rglob("*.jsonl"))
        if not files:
            return False
        saved = store.gloss_vectors_saved()
        return not saved or max(f.stat().st_mtime for f in files) > max(f.stat().st_mtime for f in saved)

    @classmethod
    def build(
        cls,
        store: PassageStore,
        passages: Iterable[Passage],
        model_name: str,
        dim: int,
        embed: Callable[[list[str]], np.ndarray],
    ) -> bool:
        """Embed and save the gloss vectors unless the file for the current glosses exists; True
        when it embedded. The file is written under a temporary name and renamed into place."""
        rows = _Rows.of(passages, load_glosses(), load_stanzas(), load_asks(gloss_files.GLOSS_DIR / ASK_DIR))
        if not rows.ids:
            return False
        path = store.gloss_vectors_path(rows.fingerprint(model_name, dim))
        if path.exists():
            path.touch()  # checked against the glosses as they are now (`maybe_stale`)
            return False
        vectors = np.asarray(embed(rows.texts), dtype=np.float32)
        if vectors.shape != (len(rows.ids), dim) or not np.isfinite(vectors).all():
            raise ValueError(f"gloss vectors have shape {vectors.shape}, expected {(len(rows.ids), dim)}")
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in store.gloss_vectors_saved():
            old.unlink(missing_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        np.savez(partial, vectors=vectors)
        partial.replace(path)
        return True
