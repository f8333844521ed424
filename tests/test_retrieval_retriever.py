"""HybridRetriever over a real LanceDB folder: fusion, full text, fallbacks, budget, readiness,
model checks, restart, incremental indexing, tools."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from structlog.testing import capture_logs

from core.retrieval.indexer import build_index
from core.retrieval.retriever import HybridRetriever, RetrievalError, RetrieverConfig, RetrieverNotReady
from core.retrieval.store import IndexMismatchError, IndexMissingError, PassageStore
from core.tools import ToolContext, Toolset, classics_tools
from tests.fakes.retrieval_fixtures import REPO, TableEmbedder, build_real_index, open_retriever, passage

CTX = ToolContext(person_id=1, platform="console", chat_id="c", is_group=False, trace_id="t")
DOCS = [
    passage("lunyu:1.1", "alpha 学而时习之"),
    passage("lunyu:1.2", "beta 有朋自远方来"),
    passage("lunyu:1.3", "gamma 巧言令色鲜矣仁"),
]
VECS = {"alpha": [1, 0, 0, 0], "beta": [0.8, 0.6, 0, 0], "gamma": [0, 0, 1, 0]}


@pytest.fixture(scope="module")
def real_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("lancedb")
    build_real_index(path)
    return path


@pytest.fixture
def small(tmp_path):
    embedder = TableEmbedder(VECS)
    store = PassageStore(tmp_path / "db")
    build_index(store, embedder, DOCS)
    return tmp_path / "db", embedder


async def test_known_passages_come_first_on_the_real_corpus(real_index):
    retriever = await open_retriever(real_index)
    response = await retriever.search("管仲之器小哉", k=3)
    top = response.results[0]
    assert (top.id, top.ref, top.verbatim) == ("lunyu:3.22", "《论语·八佾》第22章", True)
    assert top.rerank_score is None and not response.reranked and not response.degraded
    assert set(top.routes) == {"vector", "keyword"} and top.text.startswith("子曰：“管仲之器小哉")
    quote = await retriever.search("执子之手", k=3, corpus="shijing")
    assert [r.id for r in quote.results[:2]] == ["shijing:31", "shijing:81"]  # both contain it, in fused order
    assert all(r.corpus == "shijing" for r in quote.results)
    assert json.loads(json.dumps(top.to_dict()))["routes"] == top.routes


async def test_each_route_recalls_an_oversampled_pool(small):
    path, embedder = small
    calls = []

    class RecordingStore(PassageStore):
        def vector_search(self, vector, limit, corpus="all"):
            calls.append(limit)
            return super().vector_search(vector, limit, corpus)

    retriever = HybridRetriever(RecordingStore(path), embedder, config=RetrieverConfig(oversample=3))
    await retriever.start()
    await retriever.search("alpha", k=1)
    assert calls == [3]


async def test_keyword_only_hit_carries_full_text_and_metadata(small):
    path, embedder = small
    retriever = await open_retriever(path, embedder, config=RetrieverConfig(oversample=1, verbatim_boost=False))
    response = await retriever.search("alpha 巧言", k=2)  # vector: 1.1 only (pool 2 → 1.1, 1.2); keyword: 1.3
    by_id = {r.id: r for r in response.results}
    keyword_only = [r for r in response.results if set(r.routes) == {"keyword"}]
    assert keyword_only, response.results
    hit = keyword_only[0]
    assert (
        hit.text == {p.id: p for p in DOCS}[hit.id].text and hit.ref == f"ref {hit.id}" and hit.meta == {"chapter": 1}
    )
    assert by_id["lunyu:1.1"].routes["vector"] == 1


async def test_vector_failure_degrades_to_keyword_and_both_failing_is_an_error(small):
    path, embedder = small
    retriever = await open_retriever(path, embedder)
    embedder.fail_queries = RuntimeError("embedding service down")
    with capture_logs() as logs:
        response = await retriever.search("巧言令色", k=2)
    assert response.degraded and response.failed_routes == ("vector",)
    assert [r.id for r in response.results] == ["lunyu:1.3"] and response.results[0].routes == {"keyword": 1}
    assert any(e["event"] == "retrieval_route_failed" and e["route"] == "vector" for e in logs)
    empty = await retriever.search("nothing matches this", k=2)  # keyword worked and found nothing
    assert empty.degraded and empty.results == []
    with pytest.raises(RetrievalError):
        await retriever.search("巧言令色", k=2, mode="vector")


async def test_budget_cuts_a_hung_route(small):
    path, embedder = small
    retriever = await open_retriever(path, embedder, config=RetrieverConfig(budget_s=1.0))
    embedder.slow = True  # embed_query waits on an event nobody sets
    response = await retriever.search("巧言令色", k=2)
    assert response.degraded and response.failed_routes == ("vector",)
    assert response.results[0].id == "lunyu:1.3" and 900 < response.timings_ms["total"] < 3000


class ScriptedReranker:
    name = "scripted"

    def __init__(self, scores=None, error=None):
        self.scores, self.error, self.calls = scores, error, []

    async def score(self, query, passages):
        self.calls.append([p.id for p in passages])
        if self.error:
            raise self.error
        return self.scores(passages) if callable(self.scores) else self.scores


async def test_rerank_orders_the_pool_and_keeps_both_scores(small):
    path, embedder = small
    reranker = ScriptedReranker(scores=lambda ps: [10.0 if p.id == "lunyu:1.2" else 1.0 for p in ps])
    retriever = await open_retriever(path, embedder, reranker=reranker, config=RetrieverConfig(verbatim_boost=False))
    response = await retriever.search("alpha", k=2)
    assert response.reranked and response.results[0].id == "lunyu:1.2"
    assert response.results[0].rerank_score == 10.0 and response.results[0].fusion_score > 0
    assert len(reranker.calls[0]) == 3  # the whole fused pool was scored, not just top k


@pytest.mark.parametrize("reranker", [ScriptedReranker(error=RuntimeError("boom")), ScriptedReranker(scores=[1.0])])
async def test_rerank_failure_falls_back_to_fused_order_with_flags(small, reranker):
    path, embedder = small
    plain = await open_retriever(path, embedder)
    retriever = await open_retriever(path, embedder, reranker=reranker)
    with capture_logs() as logs:
        response = await retriever.search("alpha", k=2)
    expected = await plain.search("alpha", k=2)
    assert not response.reranked and [r.id for r in response.results] == [r.id for r in expected.results]
    assert all(r.rerank_score is None for r in response.results)
    assert any(e["event"] == "rerank_failed_fused_order_kept" and e["log_level"] == "warning" for e in logs)


async def test_model_or_dimension_mismatch_is_refused(small):
    path, _ = small
    for other in (TableEmbedder(VECS, model_name="another"), TableEmbedder({"alpha": [1] * 8}, dim=8)):
        with pytest.raises(IndexMismatchError, match="fuzi index --rebuild"):
            await open_retriever(path, other)
        with pytest.raises(IndexMismatchError, match="fuzi index --rebuild"):
            build_index(PassageStore(path), other, DOCS)
    report = build_index(PassageStore(path), TableEmbedder(VECS, model_name="another"), DOCS, rebuild=True)
    assert report.embedded == 3 and (await open_retriever(path, TableEmbedder(VECS, model_name="another"))).ready


async def test_empty_keyword_index_over_a_full_table_fails_loudly(small):
    path, embedder = small

    class LosingStore(PassageStore):
        def all_passages(self):
            return []

    with pytest.raises(RetrieverNotReady, match="keyword index holds 0"):
        await HybridRetriever(LosingStore(path), embedder).start()
    with pytest.raises(IndexMissingError, match="fuzi index"):
        await open_retriever(path.parent / "empty", embedder)
    with pytest.raises(RetrieverNotReady):
        await HybridRetriever(PassageStore(path), embedder).search("alpha")


@pytest.mark.processes
def test_keyword_index_is_rebuilt_in_a_new_process(small):
    path, _ = small
    script = (
        "import asyncio, json, sys;"
        "from core.retrieval.store import PassageStore;"
        "from core.retrieval.retriever import HybridRetriever;"
        "from tests.fakes.retrieval_fixtures import TableEmbedder, VECS_FOR_SUBPROCESS as V;"
        "r = HybridRetriever(PassageStore(sys.argv[1]), TableEmbedder(V));"
        "asyncio.run(r.start());"
        "resp = asyncio.run(r.search('巧言令色', k=3, mode='keyword'));"
        "print(json.dumps([x.to_dict() for x in resp.results], ensure_ascii=False))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert [r["id"] for r in results] == ["lunyu:1.3"] and results[0]["text"] == "gamma 巧言令色鲜矣仁"


async def test_indexing_is_idempotent_and_incremental(small):
    path, _ = small
    embedder = TableEmbedder(VECS)
    store = PassageStore(path)
    assert build_index(store, embedder, DOCS).embedded == 0 and embedder.embedded == 0
    changed = [DOCS[0], passage("lunyu:1.2", "beta 有朋自远方来，不亦乐乎"), passage("lunyu:1.4", "delta 吾日三省吾身")]
    report = build_index(store, embedder, changed)
    assert (report.embedded, report.unchanged, report.deleted, report.total) == (2, 1, 1, 3)
    assert embedder.embedded == 2
    assert sorted(store.hashes()) == ["lunyu:1.1", "lunyu:1.2", "lunyu:1.4"]


async def test_get_and_neighbours(real_index):
    retriever = await open_retriever(real_index)
    assert (await retriever.get("lunyu:3.22")).ref == "《论语·八佾》第22章" and await retriever.get(
        "lunyu:99.1"
    ) is None
    assert [p.id for p in await retriever.neighbours("lunyu:3.22")] == ["lunyu:3.21", "lunyu:3.23"]
    assert [p.id for p in await retriever.neighbours("lunyu:4.1")] == ["lunyu:4.2"]  # 3.26 is another chapter
    assert [p.id for p in await retriever.neighbours("shijing:1", n=2)] == ["shijing:2", "shijing:3"]


async def test_classics_tools(real_index):
    client = Toolset(classics_tools(await open_retriever(real_index)))
    names = [t["function"]["name"] for t in client.to_openai_tools()]
    assert names == ["search_classics", "find_quote", "get_passage"]
    found = await client.call("search_classics", {"query": "管仲", "k": 3, "corpus": "lunyu"}, CTX)
    assert found.ok and found.content["passages"][0]["id"] == "lunyu:3.22"
    four = await client.call("search_classics", {"query": "管仲", "k": 3, "corpus": "sishu"}, CTX)
    assert four.ok and {p["id"] for p in four.content["passages"]} >= {"mengzi:3.1"}  # 管仲、晏子之功
    quote = await client.call("find_quote", {"text": "执子之手！"}, CTX)
    assert quote.content["exact"] and [p["id"] for p in quote.content["passages"]] == ["shijing:31", "shijing:81"]
    traditional = await client.call("find_quote", {"text": "執子之手！"}, CTX)  # script set aside, as in quotes first
    assert traditional.content["exact"] and [p["id"] for p in traditional.content["passages"]] == [
        "shijing:31",
        "shijing:81",
    ]
    fuzzy = await client.call("find_quote", {"text": "执手偕老"}, CTX)
    assert fuzzy.ok and not fuzzy.content["exact"] and fuzzy.content["passages"]
    got = await client.call("get_passage", {"id": "lunyu:3.22"}, CTX)
    assert [(p["id"], p["role"]) for p in got.content["passages"]] == [
        ("lunyu:3.21", "before"),
        ("lunyu:3.22", "requested"),
        ("lunyu:3.23", "after"),
    ]
    bad = await client.call("get_passage", {"id": "lunyu:3.99"}, CTX)
    assert not bad.ok and "no passage" in bad.error


async def test_english_query_reaches_the_keyword_route_through_the_glossary(real_index):
    retriever = await open_retriever(real_index)
    response = await retriever.search("What did Confucius think of Guan Zhong?", k=5, mode="keyword")
    assert response.results and response.results[0].id in {"lunyu:3.22", "lunyu:14.9", "lunyu:14.16", "lunyu:14.17"}
    plain = await open_retriever(real_index, config=RetrieverConfig(english_expansion=False))
    assert (await plain.search("What did Confucius think of Guan Zhong?", k=5, mode="keyword")).results == []


async def test_every_query_type_is_fused_with_the_same_weights(small):
    path, embedder = small
    # vector ranks 1.1 first (alpha), keyword finds only 1.2 (有朋) once the scaffolding is gone.
    query = "alpha 有朋是什么意思"
    vector_first = RetrieverConfig(fusion="rrf", weights={"vector": 5.0, "keyword": 1.0}, verbatim_boost=False)
    keyword_first = RetrieverConfig(fusion="rrf", weights={"vector": 1.0, "keyword": 5.0}, verbatim_boost=False)
    assert (await (await open_retriever(path, embedder, config=vector_first)).search(query, k=1)).results[
        0
    ].id == "lunyu:1.1"
    assert (await (await open_retriever(path, embedder, config=keyword_first)).search(query, k=1)).results[
        0
    ].id == "lunyu:1.2"
    for fusion in ("rrf", "score"):
        equal = await open_retriever(path, embedder, config=RetrieverConfig(fusion=fusion, verbatim_boost=False))
        response = await equal.search(query, k=3)
        assert {r.id for r in response.results[:2]} == {"lunyu:1.1", "lunyu:1.2"}, fusion
        assert all(r.fusion_score > 0 for r in response.results[:2])


async def test_snapshot_is_loaded_without_retokenising_and_is_keyed_by_content(small):
    path, embedder = small
    await open_retriever(path, embedder)  # first start builds the snapshot from the table
    snapshots = list((path / ".snapshots").iterdir())
    assert len(snapshots) == 1 and (snapshots[0] / "bm25").is_dir()  # bm25s's own files, memory-mapped at load

    class NoTexts(PassageStore):
        def all_passages(self):
            raise AssertionError("the snapshot should have been used")

    again = HybridRetriever(NoTexts(path), embedder)
    await again.start()
    assert [r.id for r in (await again.search("巧言", k=1, mode="keyword")).results] == ["lunyu:1.3"]
    assert (await again.get("lunyu:1.3")).text == "gamma 巧言令色鲜矣仁"
    # The corpus changes (same ids, new text): another fingerprint, so the stale snapshot is not read.
    changed = [DOCS[0], DOCS[1], passage("lunyu:1.3", "gamma 逝者如斯夫")]
    build_index(PassageStore(path), embedder, changed)
    with pytest.raises(AssertionError, match="snapshot should have been used"):
        await HybridRetriever(NoTexts(path), embedder).start()
    fresh = await open_retriever(path, embedder)
    assert [r.id for r in (await fresh.search("逝者", k=1, mode="keyword")).results] == ["lunyu:1.3"]
    assert (await fresh.search("巧言", k=3, mode="keyword")).results == []
    assert [p.name for p in (path / ".snapshots").iterdir()] != [p.name for p in snapshots]  # the stale one went
    # An unreadable snapshot is rebuilt, not trusted: a broken matrix, then a snapshot of the format before.
    current = next((path / ".snapshots").iterdir())
    (current / "bm25" / "data.csc.index.npy").write_bytes(b"not a matrix")
    assert [
        r.id for r in (await (await open_retriever(path, embedder)).search("逝者", k=1, mode="keyword")).results
    ] == ["lunyu:1.3"]
    shutil.rmtree(current)
    current.with_name(current.name + ".npz").write_bytes(b"fuzi-retrieval-snapshot-1")
    assert [
        r.id for r in (await (await open_retriever(path, embedder)).search("逝者", k=1, mode="keyword")).results
    ] == ["lunyu:1.3"]
    assert [p.name for p in (path / ".snapshots").iterdir()] == [current.name]  # the old format's file went


async def test_in_memory_scan_and_lancedb_agree(real_index):
    from core.retrieval.embedder import HashingEmbedder

    store = PassageStore(real_index)
    embedder = HashingEmbedder()
    queries = ["管仲之器小哉", "关关雎鸠", "学而时习之", "君子"]
    vectors = [await embedder.embed_query(q) for q in queries]
    through_lancedb = [[pid for pid, _ in store.vector_search(v, 10)] for v in vectors]
    assert store.load_flat()
    in_memory = [[pid for pid, _ in store.vector_search(v, 10)] for v in vectors]
    assert in_memory == through_lancedb
    assert all(pid.startswith("shijing") for pid, _ in store.vector_search(vectors[1], 5, corpus="shijing"))
    store.delete(["lunyu:0.0"])  # any write drops the in-memory copy
    assert store._flat is None


def test_ann_index_above_the_threshold(tmp_path):
    from core.retrieval.embedder import HashingEmbedder
    from evals.retrieval.bench import synthetic_passages
    from tests.fakes.retrieval_fixtures import real_passages

    passages = synthetic_passages(real_passages(), 1500)
    embedder = HashingEmbedder()
    small = PassageStore(tmp_path / "small", ann_min_rows=2000)
    build_index(small, embedder, passages[:300])
    assert not small.has_ann_index()
    store = PassageStore(tmp_path / "db", ann_min_rows=1000)
    build_index(store, embedder, passages)
    assert store.has_ann_index() and not store.load_flat()
    vectors = embedder.embed_passages_sync([p.text for p in passages[:20]])
    top = [store.vector_search(v, 10)[0][0] for v in vectors]
    assert sum(t == p.id for t, p in zip(top, passages[:20])) >= 18  # each passage finds itself


async def test_sentence_vectors_are_incremental_and_never_stale(tmp_path):
    from core.retrieval.embedder import HashingEmbedder
    from core.retrieval.sentences import split_sentences
    from tests.fakes.retrieval_fixtures import real_passages

    passages = [p for p in real_passages() if p.corpus == "shijing"][:30]
    embedder = HashingEmbedder()
    store = PassageStore(tmp_path / "db")
    build_index(store, embedder, passages, sentences=True)
    with_sentences = {p.id for p in passages if split_sentences(p)}
    assert set(store.sentences.hashes()) == with_sentences and with_sentences
    config = RetrieverConfig(sentence_vectors="max")
    retriever = await open_retriever(tmp_path / "db", embedder, config=config)
    assert retriever._routes.sentences
    line = split_sentences(passages[0])[1]
    response = await retriever.search(line, k=3, mode="vector")
    assert response.results[0].id == passages[0].id  # results stay passage-level
    # The passage table changes without sentences: the sentence rows are stale and not used.
    changed = [passage(passages[0].id, "新的一句诗。又一句新的诗。", "shijing"), *passages[1:]]
    build_index(PassageStore(tmp_path / "db"), embedder, changed)
    with capture_logs() as logs:
        stale = await open_retriever(tmp_path / "db", embedder, config=config)
    assert not stale._routes.sentences and any(e["event"] == "sentence_vectors_stale" for e in logs)
    build_index(PassageStore(tmp_path / "db"), embedder, changed, sentences=True)
    fresh = await open_retriever(tmp_path / "db", embedder, config=config)
    assert (
        fresh._routes.sentences
        and (await fresh.search("又一句新的诗", k=1, mode="vector")).results[0].id == passages[0].id
    )


async def test_a_fresh_machine_answers_from_the_keyword_route_until_the_table_is_built(tmp_path, corpus_dir):
    """First start: quotes already find their passage while the vectors build; `start()` then
    switches to both routes without a restart."""
    from core.retrieval.documents import load_corpus
    from core.retrieval.embedder import HashingEmbedder

    passages = load_corpus(corpus_dir)
    store, embedder = PassageStore(tmp_path / "db"), HashingEmbedder()
    retriever = HybridRetriever(store, embedder)
    await retriever.start_keyword_only(passages)
    assert retriever.ready and not retriever.vectors_ready
    early = await retriever.search("管仲之器小哉", k=3)
    assert early.results[0].id == "lunyu:3.22" and set(early.results[0].routes) == {"keyword"}
    assert not early.degraded  # the vector route is not failing, it is not there yet
    assert (await retriever.get("shijing:1")).title == "关雎"
    build_index(store, embedder, passages)
    await retriever.start()
    later = await retriever.search("管仲之器小哉", k=3)
    assert retriever.vectors_ready and set(later.results[0].routes) == {"vector", "keyword"}
