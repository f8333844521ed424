"""Pure parts of retrieval: passage ids and refs, tokens, BM25 scoring, RRF, verbatim rule, metrics."""

from __future__ import annotations

import math

import pytest

from core.retrieval.documents import CorpusError, is_passage_id, load_corpus, sort_key
from core.retrieval.fusion import FLAT_FLOOR, flat_weights, promote, quote_key, rrf, score_fusion, squash
from core.retrieval.keyword import KeywordIndex, VerbatimIndex, tokenize
from core.retrieval.metrics import EvalQuery, ndcg_at, percentile, recall_at, reciprocal_rank, summarise
from core.retrieval.modern import vector_text
from tests.fakes.retrieval_fixtures import corpus_dir, passage


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(corpus_dir())


def test_ids_refs_and_order(corpus):
    by_id = {p.id: p for p in corpus}
    counts = {b: sum(p.corpus == b for p in corpus) for b in ("lunyu", "shijing", "mengzi", "daxue", "zhongyong")}
    assert counts == {"lunyu": 512, "shijing": 305, "mengzi": 260, "daxue": 16, "zhongyong": 39}
    assert corpus[0].id == "lunyu:1.1" and corpus[511].id == "lunyu:20.3" and corpus[512].id == "shijing:1"
    assert by_id["lunyu:3.22"].text.startswith("子曰：“管仲之器小哉")
    assert by_id["lunyu:3.22"].ref == "《论语·八佾》第22章"
    assert by_id["shijing:1"].title == "关雎" and by_id["shijing:1"].ref == "《诗经·国风·周南·关雎》"
    assert by_id["shijing:1"].text.splitlines()[0] == "关关雎鸠，在河之洲。窈窕淑女，君子好逑。"
    assert by_id["shijing:161"].ref == "《诗经·小雅·鹿鸣之什·鹿鸣》"
    assert [p.id for p in sorted(corpus, key=lambda p: sort_key(p.id))] == [p.id for p in corpus]
    assert is_passage_id("lunyu:3.22") and is_passage_id("shijing:305")
    assert is_passage_id("mengzi:14.14") and is_passage_id("daxue:1") and is_passage_id("zhongyong:39")
    assert not is_passage_id("lunyu:3") and not is_passage_id("x'; drop table")
    assert not is_passage_id("mengzi:14") and not is_passage_id("daxue:1.1") and not is_passage_id("xunzi:1")


def test_missing_corpus_names_the_fix(tmp_path):
    with pytest.raises(CorpusError, match="fuzi data fetch"):
        load_corpus(tmp_path)


def test_tokens_include_single_cjk_characters_and_lowercased_latin_words():
    tokens = tokenize("巧言令色，鲜矣仁！ Confucius SAID Ren")
    assert {"巧", "言", "令", "色", "鲜", "矣", "仁"} <= set(tokens)
    assert {"confucius", "said", "ren"} <= set(tokens) and "Confucius" not in tokens
    assert "，" not in tokens and "！" not in tokens
    assert {"巧言", "言令", "令色", "鲜矣", "矣仁"} <= set(
        tokens
    ) and "色鲜" not in tokens  # bigrams stop at punctuation


def test_zero_score_documents_are_not_ranked():
    index = KeywordIndex(
        [passage("lunyu:1.1", "学而时习之"), passage("lunyu:1.2", "巧言令色"), passage("lunyu:1.3", "关关雎鸠")]
    )
    hits = index.search("巧笑", limit=10)
    assert [doc for doc, _ in hits] == ["lunyu:1.2"] and hits[0][1] > 0
    assert index.search("filial piety", limit=10) == []


def test_bm25_prefers_more_matches_and_filters_by_corpus():
    index = KeywordIndex(
        [passage("lunyu:1.1", "管仲之器小哉"), passage("lunyu:1.2", "管仲"), passage("shijing:1", "管仲之器")]
    )
    assert [d for d, _ in index.search("器小", limit=3)] == ["lunyu:1.1", "shijing:1"]  # 器+小 beats 器 alone
    assert [d for d, _ in index.search("管仲", limit=3)][0] == "lunyu:1.2"  # same match, shortest text
    assert [d for d, _ in index.search("管仲", limit=5, corpus="shijing")] == ["shijing:1"]


def test_a_saved_keyword_index_scores_as_the_built_one(corpus, tmp_path):
    """`KeywordIndex.load` scores bm25s's saved arrays itself (`SavedBM25`, no bm25s import at a
    start): every score equals the built index's, bit for bit, in the same dtype."""
    built = KeywordIndex(corpus)
    built.save(tmp_path)
    loaded = KeywordIndex.load(tmp_path)
    queries = ["巧言令色", "學而時習之，不亦說乎", "孟子说民为贵是什么意思？", "filial piety", ""]
    queries += ["xyz", "关关雎鸠 君子", *(p.text[:12] for p in corpus[::40])]
    for query in queries:
        a, b = built.scores(query), loaded.scores(query)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), query
        assert built.search(query, 10, corpus="lunyu") == loaded.search(query, 10, corpus="lunyu")
    assert loaded.scores("管仲").any() and not loaded.scores("xyz").any()


def test_keyword_ties_are_broken_by_id():
    docs = [passage(f"lunyu:1.{i}", "同文") for i in (3, 1, 2)]
    for _ in range(3):
        assert [d for d, _ in KeywordIndex(docs).search("同", limit=2)] == ["lunyu:1.1", "lunyu:1.2"]


def test_rrf_arithmetic():
    fused = rrf({"vector": ["a:1", "b:1"], "keyword": ["b:1", "c:1"]}, {"vector": 1.0, "keyword": 1.0}, k=60)
    scores = {f.id: f.score for f in fused}
    assert scores["b:1"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a:1"] == pytest.approx(1 / 61) and scores["c:1"] == pytest.approx(1 / 62)
    assert [f.id for f in fused] == ["b:1", "a:1", "c:1"]
    assert fused[0].routes == {"vector": 2, "keyword": 1}


def test_score_fusion_normalises_each_route():
    scored = {
        "vector": [("a:1", 0.9), ("b:1", 0.8), ("c:1", 0.5)],
        "keyword": [("c:1", 40.0), ("b:1", 30.0), ("d:1", 10.0)],
    }
    fused = score_fusion(scored, {})
    scores = {f.id: f.score for f in fused}
    assert scores["b:1"] == pytest.approx(0.75 + 2 / 3) and scores["a:1"] == pytest.approx(1.0)
    assert scores["c:1"] == pytest.approx(1.0) and scores["d:1"] == 0.0
    assert [f.id for f in fused] == ["b:1", "a:1", "c:1", "d:1"]  # a:1 and c:1 tie: corpus order
    assert fused[0].routes == {"vector": 2, "keyword": 2}
    assert [f.score for f in score_fusion({"vector": [("a:1", 0.3)], "keyword": []}, {})] == [1.0]


def test_a_flat_route_votes_less():
    clear = [("a:1", 0.90), ("b:1", 0.85), ("c:1", 0.84), ("d:1", 0.83), ("e:1", 0.82)]
    flat = [("a:1", 0.850), ("b:1", 0.849), ("c:1", 0.848), ("d:1", 0.847), ("e:1", 0.846)]
    assert flat_weights({"vector": clear}, {"vector": 1.0, "keyword": 1.0}) == {"vector": 1.0, "keyword": 1.0}
    assert flat_weights({"vector": flat}, {"vector": 1.0, "keyword": 1.0}) == {"vector": FLAT_FLOOR, "keyword": 1.0}
    half = [("a:1", 0.86), *flat[1:]]  # 1st - 5th = 0.014: between the floor and 1
    assert FLAT_FLOOR < flat_weights({"vector": half}, {})["vector"] < 1.0
    assert flat_weights({"vector": flat[:4]}, {"vector": 1.0}) == {"vector": 1.0}  # too few to judge
    assert flat_weights({"vector": flat}, {"vector": 1.0}, gap=0) == {"vector": 1.0}  # off
    bm25_flat = [("a:1", 10.0), ("b:1", 9.9), ("c:1", 9.8), ("d:1", 9.7), ("e:1", 9.6)]  # relative spread 0.04
    bm25_clear = [("a:1", 30.0), ("b:1", 9.9), ("c:1", 9.8), ("d:1", 9.7), ("e:1", 9.6)]
    assert flat_weights({"keyword": bm25_flat}, {})["keyword"] == FLAT_FLOOR
    assert flat_weights({"keyword": bm25_clear}, {})["keyword"] == 1.0
    # The keyword route's clear winner is no longer overtaken by a near-tied vector ranking's first.
    keyword = [("c:1", 30.0), ("a:1", 22.0), ("f:1", 10.0)]
    scored = {"vector": flat, "keyword": keyword}
    assert score_fusion(scored, {})[0].id == "a:1"
    assert score_fusion(scored, flat_weights(scored, {}))[0].id == "c:1"


def test_vector_text_adds_the_classical_terms_of_modern_words():
    assert vector_text("握着你的手，和你一起白头到老") == "握着你的手，和你一起白头到老 偕老 执 偕"
    assert vector_text("执子之手，与子偕老") == "执子之手，与子偕老"  # classical: no modern word
    assert vector_text("白头到老", modern=False) == "白头到老"
    assert "报" in vector_text("Should we repay injury with kindness?")
    assert (
        vector_text("Should we repay injury with kindness?", english=False) == "Should we repay injury with kindness?"
    )


def test_weights_change_the_winner():
    rankings = {"vector": ["lunyu:1.1", "lunyu:1.2"], "keyword": ["lunyu:1.2", "lunyu:1.1"]}
    assert rrf(rankings, {"vector": 0.9, "keyword": 0.1})[0].id == "lunyu:1.1"
    assert rrf(rankings, {"vector": 0.1, "keyword": 0.9})[0].id == "lunyu:1.2"


def test_ties_are_deterministic_in_corpus_order():
    rankings = {"vector": ["shijing:2", "lunyu:10.1"], "keyword": ["lunyu:10.1", "shijing:2"]}
    orders = {tuple(f.id for f in rrf(dict(reversed(list(rankings.items()))), {})) for _ in range(5)}
    orders.add(tuple(f.id for f in rrf(rankings, {})))
    assert orders == {("lunyu:10.1", "shijing:2")}


def test_verbatim_quote_detection_and_promotion():
    assert (
        squash("巧言令色，鲜矣仁！")
        == "巧言令色鲜矣仁"
        == squash("巧言令色 鮮矣仁")
        == squash("ＡＢ巧言令色，鲜矣仁")[2:]
    )
    assert (
        quote_key("巧言 令色") == "巧言令色" and quote_key("仁") is None and quote_key("what is ren 仁义礼智") is None
    )
    index = VerbatimIndex(
        [passage("lunyu:1.3", "子曰：“巧言令色，鲜矣仁！”"), passage("lunyu:5.25", "巧言、令色、足恭")]
    )
    assert index.containing("巧言令色") == ["lunyu:1.3", "lunyu:5.25"]
    assert index.containing("鲜矣仁") == ["lunyu:1.3"]
    shijing = VerbatimIndex(
        [passage("shijing:81", "遵大路兮，掺执子之手兮。"), passage("shijing:31", "执子之手，与子偕老。")]
    )
    found = shijing.containing("执子之手")
    assert found == ["shijing:81", "shijing:31"] and shijing.aligned("执子之手", found) == {"shijing:31"}
    fused = rrf({"vector": ["shijing:81", "shijing:31"]}, {})
    assert [f.id for f in promote(fused, found, {"shijing:31"})] == ["shijing:31", "shijing:81"]
    fused = rrf({"vector": ["lunyu:9.9", "lunyu:5.25"]}, {})
    promoted = promote(fused, ["lunyu:5.25", "lunyu:1.3"])
    assert [f.id for f in promoted] == ["lunyu:5.25", "lunyu:1.3", "lunyu:9.9"]
    assert promoted[0].verbatim and promoted[0].routes == {"vector": 2} and promoted[1].routes == {}


def test_metric_arithmetic_on_a_toy_set():
    ranked = ["a", "b", "c", "d", "e"]
    assert recall_at(ranked, ["c"], 1) == 0 and recall_at(ranked, ["c"], 5) == 1
    assert recall_at(ranked, ["a", "z"], 1) == 1  # capped: any gold at rank 1 is full recall@1
    assert recall_at(ranked, ["a", "e", "z"], 5) == pytest.approx(2 / 3)
    assert reciprocal_rank(ranked, ["c", "e"]) == pytest.approx(1 / 3) and reciprocal_rank(ranked, ["z"]) == 0
    assert ndcg_at(ranked, ["a"], 5) == 1
    assert ndcg_at(ranked, ["b"], 5) == pytest.approx(1 / math.log2(3))
    assert ndcg_at(ranked, ["b", "d"], 5) == pytest.approx(
        (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    )
    rows = [
        (EvalQuery("q1", ("a",)), ["a", "b"], 10.0),
        (EvalQuery("q2", ("z",)), ["a", "z"], 30.0),
        (EvalQuery("q3", ()), ["a"], 20.0),
    ]
    summary = summarise(rows)
    assert summary["n"] == 2 and summary["n_no_answer"] == 1
    assert summary["recall@1"] == 0.5 and summary["recall@5"] == 1.0 and summary["mrr"] == 0.75
    assert summary["p50_ms"] == 20.0 and percentile([1, 2, 3, 4], 95) == 4


def test_english_glossary_expansion():
    from core.retrieval.glossary import expand_english

    assert expand_english("What did Confucius say about filial piety?").split() == ["孝"]
    assert "管仲" in expand_english("What did Confucius think of Guan Zhong?")
    assert expand_english("Big rats eating millet").split() == ["鼠", "食", "黍"]
    assert expand_english("quantum computing") == ""


def test_question_scaffolding_is_dropped_only_from_modern_questions():
    from core.retrieval.keyword import is_modern_question, strip_question_words

    assert strip_question_words("孔子怎么看管仲").split() == ["管仲"]
    assert strip_question_words("孔子怎样看待中庸").split() == ["中庸"]  # 中 of 中庸 stays
    assert strip_question_words("诗经里描写一年农事的诗").split() == ["一年农事"]
    assert strip_question_words("是可忍也，孰不可忍也") == "是可忍也，孰不可忍也"  # a quote passes whole
    assert strip_question_words("什么的") == "什么的"  # nothing left: unchanged
    assert is_modern_question("父母在世时子女能不能出远门") and not is_modern_question("孔子谓季氏")
