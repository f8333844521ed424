"""The LLM reranker (core/retrieval/rerank.py) over the real openai SDK against the scripted fake server
on loopback, behind the circuit breaker the app uses: the endpoint's list orders the results; a late
answer keeps the fused order and does not count against the endpoint."""

from __future__ import annotations

import re

import pytest

from core.llm.breaker import CircuitBreakerLLM
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.retrieval.indexer import build_index
from core.retrieval.rerank import LLMReranker
from core.retrieval.retriever import RetrieverConfig
from core.retrieval.store import PassageStore
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.retrieval_fixtures import TableEmbedder, open_retriever
from tests.helpers_llm_retrieval import VECS, llm, table  # noqa: F401


def number_of(prompt: str, word: str) -> int:
    """The number the prompt gave the passage holding `word`."""
    found = re.search(rf"^\[(\d+)\] .*{word}", prompt, re.M)
    assert found, prompt
    return int(found.group(1))


async def test_the_endpoints_list_orders_the_results(fake_llm, llm, table):  # noqa: F811
    fake_llm.handler(lambda body: f"{number_of(body['messages'][-1]['content'], 'gamma')}, 0")
    config = RetrieverConfig(verbatim_boost=False, quotes_first=False)
    retriever = await open_retriever(table, TableEmbedder(VECS), reranker=LLMReranker(llm), config=config)
    response = await retriever.search("alpha", k=3)
    assert response.reranked
    assert response.results[0].id == "lunyu:3.22" and response.results[0].rerank_score == 10.0
    assert [r.rerank_score for r in response.results[1:]] == [-1.0, -1.0]  # not listed: fused order below
    (request,) = fake_llm.requests
    prompt = request["messages"][-1]["content"]
    assert "Question: alpha" in prompt and {"[1]", "[2]", "[3]"} <= set(re.findall(r"\[\d\]", prompt))
    assert request["temperature"] == 0.0 and request["max_tokens"] <= 60


async def test_a_late_answer_keeps_the_fused_order_and_the_breaker_closed(fake_llm, llm, table):  # noqa: F811
    config = RetrieverConfig(verbatim_boost=False, quotes_first=False, budget_s=0.5)
    retriever = await open_retriever(table, TableEmbedder(VECS), reranker=LLMReranker(llm), config=config)
    plain = await open_retriever(table, TableEmbedder(VECS), config=config)
    fused = [r.id for r in (await plain.search("alpha", k=3)).results]
    for _ in range(3):  # more than the breaker's two failures
        fake_llm.delay(2.0, then="3, 2, 1")
        response = await retriever.search("alpha", k=3)
        assert not response.reranked and [r.id for r in response.results] == fused
    assert llm.state == "closed"
