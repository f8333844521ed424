"""Fixtures of the retrieval stages that ask the LLM (query translation, the LLM reranker): the real
openai SDK against the scripted fake server on loopback, behind the circuit breaker the app uses, and a
three-passage index."""

from __future__ import annotations

import pytest

from core.llm.breaker import CircuitBreakerLLM
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.retrieval.indexer import build_index
from core.retrieval.store import PassageStore
from tests.fakes.retrieval_fixtures import TableEmbedder, passage

DOCS = [
    passage("lunyu:1.1", "alpha 学而时习之，不亦说乎"),
    passage("lunyu:1.2", "beta 有朋自远方来，不亦乐乎"),
    passage("lunyu:3.22", "gamma 管仲之器小哉"),
]
VECS = {"alpha": [1, 0, 0, 0], "beta": [0, 1, 0, 0], "gamma": [0, 0, 1, 0]}


@pytest.fixture
async def llm(fake_llm):
    client = OpenAIChatClient(
        base_url=fake_llm.base_url, api_key="sk-test", model="fake-model", timeout_s=5, retry=RetryPolicy(attempts=1)
    )
    breaker = CircuitBreakerLLM(client, failures=2, reset_s=60)
    yield breaker
    await breaker.aclose()


@pytest.fixture
def table(tmp_path):
    build_index(PassageStore(tmp_path / "db"), TableEmbedder(VECS), DOCS)
    return tmp_path / "db"
