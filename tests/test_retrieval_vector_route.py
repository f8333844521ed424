"""The vector and sentence routes (core/retrieval/vector_route.py): with `sentence_vectors = "route"`
the sentences rank passages as a route of their own, best first and cut to the pool, from the one
embedding of the query that the vector route uses too."""

from __future__ import annotations

from core.retrieval.embedder import HashingEmbedder
from core.retrieval.indexer import build_index
from core.retrieval.results import RetrieverConfig
from core.retrieval.sentences import split_sentences
from core.retrieval.store import PassageStore
from tests.fakes.retrieval_fixtures import open_retriever, real_passages


class Counting(HashingEmbedder):
    def __init__(self):
        super().__init__()
        self.queries: list[str] = []

    async def embed_query(self, text):
        self.queries.append(text)
        return await super().embed_query(text)


async def test_the_sentence_route_ranks_passages_by_their_best_sentence(tmp_path):
    passages = [p for p in real_passages() if p.corpus == "shijing"][:30]
    embedder = Counting()
    build_index(PassageStore(tmp_path / "db"), embedder, passages, sentences=True)
    retriever = await open_retriever(tmp_path / "db", embedder, config=RetrieverConfig(sentence_vectors="route"))
    line = split_sentences(passages[3])[1]

    hits = await retriever._routes.sentence(line, 4, "all", {}, {})
    assert hits[0][0] == passages[3].id and len(hits) == 4
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert len({pid for pid, _ in hits}) == 4  # one hit per passage: its best sentence
    assert await retriever._routes.sentence("🙂！", 4, "all", {}, {}) == []  # no feature: no vote, no fault

    embedder.queries.clear()
    response = await retriever.search(line, k=3)
    top = response.results[0]
    assert top.id == passages[3].id and top.routes["sentence"] == 1 and top.routes["vector"] == 1
    assert embedder.queries == [line]  # one embedding, shared by both routes
    assert {"embed", "vector"} <= set(response.timings_ms)
