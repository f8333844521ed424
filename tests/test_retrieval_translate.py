"""Query translation through the LLM (core/retrieval/translate.py), over the real openai SDK against
the scripted fake server on loopback, behind the circuit breaker the app uses."""

from __future__ import annotations

import pytest

from core.engine.lookup import PassageLookup
from core.language.script import ScriptConverter
from core.llm.breaker import CircuitBreakerLLM
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.retrieval.indexer import build_index
from core.retrieval.retriever import RetrieverConfig
from core.retrieval.store import PassageStore
from core.retrieval.translate import QueryTranslator, clean, wants_translation
from tests.fakes.clock import FakeClock
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.fakes.retrieval_fixtures import TableEmbedder, open_retriever
from tests.helpers_llm_retrieval import VECS, llm, table  # noqa: F401


def test_which_questions_are_translated_and_what_is_kept():
    assert wants_translation("What did Confucius say about friends who lie?")
    assert wants_translation("孔子怎么看朋友之间说谎？")
    assert not wants_translation("学而时习之")  # a classical quote already matches
    assert not wants_translation("管仲")
    assert not wants_translation("🙂")
    assert clean("1. 与朋友交，而不信乎？ (Analects 1.4)\n信") == "与朋友交 而不信乎 信"
    assert clean("I don't know.") == ""


async def test_translation_goes_through_the_llm_once_and_is_cached(fake_llm, llm):  # noqa: F811
    fake_llm.reply_text("有朋自远方来 朋 友")
    translator = QueryTranslator(llm)
    question = "What did he say about friends visiting from afar?"
    assert await translator.translate(question) == "有朋自远方来 朋 友"
    assert await translator.translate("  What did he say about   friends visiting from afar? ") == "有朋自远方来 朋 友"
    assert len(fake_llm.requests) == 1
    prompt = fake_llm.requests[0]["messages"][-1]["content"]
    assert question in prompt and "classical-Chinese" in prompt
    assert await translator.translate("学而时习之") == ""  # not asked: a quote needs no translation
    assert len(fake_llm.requests) == 1


async def test_failures_give_no_translation_and_are_not_cached(fake_llm, llm):  # noqa: F811
    translator = QueryTranslator(llm, timeout_s=0.3)
    fake_llm.error(500)
    assert await translator.translate("Who was Guan Zhong?") == ""
    fake_llm.delay(2.0, then="管仲")
    assert await translator.translate("Who was Guan Zhong?") == ""  # past the timeout
    fake_llm.reply_text("Sorry, I cannot help with that.")
    assert await translator.translate("Who was Guan Zhong?") == ""  # no Chinese in the answer
    fake_llm.reply_text("管仲之器小哉")
    assert await translator.translate("Who was Guan Zhong?") == "管仲之器小哉"


async def test_the_translated_wording_is_a_fused_route(fake_llm, llm, table):  # noqa: F811
    fake_llm.reply_text("管仲之器小哉")
    retriever = await open_retriever(table, TableEmbedder(VECS), translator=QueryTranslator(llm))
    response = await retriever.search("Was that minister narrow-minded?", k=3)
    top = response.results[0]
    assert top.id == "lunyu:3.22" and top.routes.get("translated") == 1
    assert not response.degraded and "translate" in response.timings_ms
    quote = await retriever.search("学而时习之", k=1)  # no LLM call for a quote
    assert quote.results[0].id == "lunyu:1.1" and "translated" not in quote.results[0].routes
    assert len(fake_llm.requests) == 1


async def test_without_an_llm_or_with_an_open_breaker_search_is_the_offline_one(fake_llm, llm, table):  # noqa: F811
    offline = await open_retriever(table, TableEmbedder(VECS))
    expected = [r.id for r in (await offline.search("Was that minister narrow-minded?", k=3)).results]
    for _ in range(2):
        fake_llm.error(500)
    translated = await open_retriever(
        table, TableEmbedder(VECS), translator=QueryTranslator(llm), config=RetrieverConfig(budget_s=5)
    )
    for _ in range(3):  # two failures open the breaker; the third call fails at once
        response = await translated.search("Was that minister narrow-minded?", k=3)
        assert [r.id for r in response.results] == expected and not response.degraded
    assert len(fake_llm.requests) == 2


async def test_no_translation_while_the_breaker_waits_for_its_probe(fake_llm):  # noqa: F811
    client = OpenAIChatClient(
        base_url=fake_llm.base_url, api_key="sk-test", model="fake-model", timeout_s=5, retry=RetryPolicy(attempts=1)
    )
    clock = FakeClock()
    breaker = CircuitBreakerLLM(client, failures=1, reset_s=0.05, clock=clock)
    try:
        translator = QueryTranslator(breaker)
        fake_llm.error(500)
        assert await translator.translate("Who was Guan Zhong?") == ""  # the failure opens the breaker
        clock.advance(0.1)
        assert breaker.state == "half_open"
        fake_llm.reply_text("管仲之器小哉")
        assert await translator.translate("Who was Guan Zhong?") == ""  # never the probe: a cut one re-opens it
        assert len(fake_llm.requests) == 1 and breaker.state == "half_open"
    finally:
        await breaker.aclose()


async def test_look_ups_never_ask_the_llm(fake_llm, llm, table):  # noqa: F811
    fake_llm.reply_text("管仲之器小哉")
    retriever = await open_retriever(table, TableEmbedder(VECS), translator=QueryTranslator(llm))
    lookup = PassageLookup(retriever, ScriptConverter())
    found = await lookup.lookup("Was that minister narrow-minded?", account="telegram:1")
    assert found.passages and fake_llm.requests == []  # retrieval alone
    assert (await retriever.search("Was that minister narrow-minded?", k=1)).results  # a reply's search still asks
    assert len(fake_llm.requests) == 1
