"""The console's figures on SQLite and on PostgreSQL (the per-day grouping is SQL's `date()` on both)."""

from __future__ import annotations

from core.llm.choice import ModelChoice
from core.llm.client import OpenAIChatClient
from core.storage import Storage, open_database
from core.storage.operators import percentile
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.helpers_engine import collect, final_of, incoming, make_service


async def test_stats_and_lists_on_both_databases(database_url, fake_llm):  # noqa: F811
    engine = open_database(database_url)
    client = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="m1", timeout_s=5)
    try:
        storage = Storage(engine)
        service = make_service(storage, llm=client, models=ModelChoice("m1", ("m2",)))
        fake_llm.stream_text("子曰：可。", usage=(10, 3))
        first = final_of(await collect(service, incoming("何为仁？")))
        await collect(service, incoming("model m2", chat="g", user="bob", command="settings"))
        fake_llm.stream_text("子曰：善。", usage=(7, 2))
        final_of(await collect(service, incoming("何为礼？", chat="g", user="bob")))
        assert await storage.feedback.record(first.trace_id, "console", "console:alice", "👎") == "down"
        stats = await storage.operators.stats(3)
        feedback = await storage.operators.feedback(3)
        unanswered = await storage.operators.unanswered(3, limit=1)
        chats = await storage.operators.chats(limit=1)
        chats_next = await storage.operators.chats(after=chats.next, limit=1)
    finally:
        await client.aclose()
        engine.dispose()
    assert (stats["messages"], stats["people"], stats["chats"]) == (2, 2, {"console": 2})
    assert stats["levels"] == {"agent": 0, "degraded": 2, "texts_only": 0}
    assert stats["tokens"] == {"m1": {"prompt": 10, "completion": 3}, "m2": {"prompt": 7, "completion": 2}}
    assert stats["feedback"] == {"up": 0, "down": 1}
    assert [d["messages"] for d in stats["per_day"]] == [0, 0, 2] and stats["per_day"][-1]["down"] == 1
    assert [(i["question"], i["verdict"]) for i in feedback.items] == [("何为仁？", "down")]
    assert len(unanswered.items) == 1 and unanswered.next is not None  # neither answer cited a passage
    assert [c["chat"] for c in chats.items + chats_next.items] == ["console:c1", "console:g"]
    assert chats_next.items[0]["model"] == "m2" and chats.items[0]["model"] == "default"


def test_percentiles_are_nearest_rank():
    assert percentile([], 50) is None
    assert percentile([5], 95) == 5
    assert (percentile(list(range(1, 101)), 50), percentile(list(range(1, 101)), 95)) == (50, 95)
    assert percentile([30, 10, 20], 50) == 20
