"""The reply's row: written as the reply starts, finished in place, dropped when nothing was answered."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace

from core.shown_in import ShownIn
from core.storage.replies import Interrupted
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_engine import asked, collect, incoming, make_service, sqlite_storage


class _GatedSearch:
    """A retriever that finds nothing until the test opens the gate: the reply is surely still running."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()

    async def search(self, query: str, *, k: int = 3, corpus: str = "all"):
        await self.gate.wait()
        return SimpleNamespace(results=[])


async def test_row_exists_while_the_reply_runs_and_is_finished_in_place(tmp_path):
    storage = sqlite_storage(tmp_path)
    retriever = _GatedSearch()
    service = make_service(storage, retriever=retriever)  # no LLM: an L2 answer, held at the search
    message = incoming("管仲之器小哉")
    seen = []
    async for _event in service.handle(message):
        if not seen:  # the first event (the no-LLM notice) comes before the L2 search
            rows = await storage.messages.recent("console:c1", 5)
            seen = [(r.role, r.status) for r in rows]
            retriever.gate.set()
    assert ("assistant", "streaming") in seen
    rows = await storage.messages.recent("console:c1", 5)
    assert [(r.role, r.status, r.level) for r in rows] == [("user", "ok", None), ("assistant", "ok", 2)]


async def test_a_config_error_leaves_no_started_row(tmp_path, fake_llm):
    from core.llm.client import OpenAIChatClient

    storage = sqlite_storage(tmp_path)
    fake_llm.error(401)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-x", model="m")
    service = make_service(storage, llm=llm)
    [notice] = await collect(service, incoming("何为仁？"))
    assert notice.reason == "config_error"
    rows = await storage.messages.recent("console:c1", 5)
    assert [r.role for r in rows] == ["user"]


async def test_close_interrupted_marks_reply_and_question_and_hands_them_out_once(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    await asked(storage, "telegram:7", "t1")
    await storage.replies.shown_in("t1", ShownIn("telegram", "7", 1001))
    await asked(storage, "discord:9", "t2")
    future = datetime.now(UTC) - timedelta(minutes=5)
    assert await storage.replies.close_interrupted(future) == []  # too young: another process may own them
    await service.close_interrupted()
    assert service.take_interrupted("telegram") == [ShownIn("telegram", "7", 1001)]
    assert service.take_interrupted("discord") == [ShownIn("discord", "9")]  # nothing shown: the chat is told anew
    assert service.take_interrupted("telegram") == [] and service.take_interrupted("discord") == []
    rows = await storage.messages.recent("telegram:7", 5) + await storage.messages.recent("discord:9", 5)
    assert {(r.role, r.status) for r in rows} == {("user", "interrupted"), ("assistant", "interrupted")}
    assert Interrupted("telegram:7", "t1", ShownIn("telegram", "7", 1001)) not in service._interrupted


async def test_a_reply_closed_by_another_process_while_running_is_revived_when_it_finishes(tmp_path):
    storage = sqlite_storage(tmp_path)
    await asked(storage, "console:c1", "t9")
    await storage.replies.close_interrupted()  # e.g. `fuzi chat` started beside the running bot
    await storage.replies.finish("console:c1", "t9", "答", 2, "ok")
    rows = await storage.messages.recent("console:c1", 5)
    assert [(r.role, r.status, r.text) for r in rows] == [("user", "ok", "问"), ("assistant", "ok", "答")]
