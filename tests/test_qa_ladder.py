"""QA: an LLM that answers nothing never gives the user an empty reply (found driving `fuzi chat`)."""

from __future__ import annotations

import pytest

from core.llm.client import OpenAIChatClient
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_engine import CorpusRetriever, collect, final_of, incoming, make_service, sqlite_storage


def client(fake) -> OpenAIChatClient:
    return OpenAIChatClient(base_url=fake.base_url, api_key="sk-test", model="fake-model", timeout_s=5)


@pytest.mark.parametrize("answer", ["", "  \n\t ", "[1][2]"])
async def test_plain_llm_answering_nothing_steps_down_to_the_texts(tmp_path, fake_llm, answer):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, llm=client(fake_llm), retriever=CorpusRetriever())
    fake_llm.stream_text(answer)
    final = final_of(await collect(service, incoming("巧言令色")))
    assert final.level == 2 and "巧言令色，鲜矣仁" in final.text and final.citations
    rows = await storage.messages.recent("console:c1", 5)
    assert [(r.role, r.status) for r in rows] == [("user", "ok"), ("assistant", "ok")]
    assert rows[1].text.strip() and rows[1].level == 2  # no empty assistant message is stored
