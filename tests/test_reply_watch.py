"""Crash repair by live processes: a reply row nobody renews is closed by the next sweep of anyone alive;
a final text is recorded "ok" only once the adapter took it."""

from __future__ import annotations

import asyncio
import contextlib
from types import SimpleNamespace

import pytest

from core.events import FinalReply
from core.shown_in import ShownIn
from tests.helpers_engine import asked, incoming, make_service, sqlite_storage
from tests.test_reply_failures import FailingReplies

pytestmark = pytest.mark.timeout(60)


class _GatedSearch:
    def __init__(self) -> None:
        self.gate, self.entered = asyncio.Event(), asyncio.Event()

    async def search(self, query: str, *, k: int = 3, corpus: str = "all"):
        self.entered.set()
        await self.gate.wait()
        return SimpleNamespace(results=[])


async def _statuses(storage, chat: str = "console:c1") -> list[tuple[str, str]]:
    return [(r.role, r.status) for r in await storage.messages.recent(chat, 10)]


async def test_a_dead_process_reply_is_repaired_by_a_live_one_within_the_lease(tmp_path):
    storage = sqlite_storage(tmp_path)
    # what a process killed mid-reply leaves: the question, its started row, where it is shown
    await asked(storage, "telegram:7", "dead")
    await storage.replies.shown_in("dead", ShownIn("telegram", "7", 1001))
    retriever = _GatedSearch()
    live = make_service(storage, retriever=retriever, reply_lease_s=0.6)  # the replica still alive
    assert live.take_interrupted("telegram") == []  # as the adapter does at start, before any sweep
    task = asyncio.create_task(_drain(live))  # a reply of its own runs all along, past the lease
    await asyncio.wait_for(retriever.entered.wait(), 20)
    assert await live.watch.tick() == []  # younger than the lease: left alone
    await asyncio.sleep(0.7)
    await live.watch.tick()  # renews its own reply, closes the dead one
    assert live.take_interrupted("telegram") == [ShownIn("telegram", "7", 1001)]
    assert await _statuses(storage, "telegram:7") == [("user", "interrupted"), ("assistant", "interrupted")]
    assert ("assistant", "streaming") in await _statuses(storage)  # its own reply is alive: untouched
    retriever.gate.set()
    await asyncio.wait_for(task, 10)
    assert await _statuses(storage) == [("user", "ok"), ("assistant", "ok")]
    assert await live.watch.tick() == [] and live.take_interrupted("telegram") == []


async def _drain(service, text: str = "学而时习之") -> list:
    return [event async for event in service.handle(incoming(text))]


async def test_two_processes_sweeping_together_close_each_row_once(tmp_path):
    storage = sqlite_storage(tmp_path)
    for n in range(3):
        await asked(storage, "telegram:7", f"t{n}")
        await storage.replies.shown_in(f"t{n}", ShownIn("telegram", "7", n))
    a, b = (make_service(storage, reply_lease_s=0.2) for _ in range(2))
    await asked(storage, "discord:9", "d0")  # no Discord adapter here: left to a process that has one
    for service in (a, b):
        service.take_interrupted("telegram")
    await asyncio.sleep(0.3)
    for watch in (a.watch, b.watch):
        watch._healthy_since = -1e9  # both have seen storage healthy for longer than the lease
    closed = await asyncio.gather(a.watch.tick(), b.watch.tick())
    assert sorted(r.trace_id for rows in closed for r in rows) == ["t0", "t1", "t2"]
    assert ("assistant", "streaming") in await _statuses(storage, "discord:9")


async def test_a_final_the_adapter_never_took_is_not_recorded_ok(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, reply_lease_s=0.3)
    message = incoming("学而时习之")
    async with contextlib.aclosing(service.handle(message)) as events:
        async for event in events:
            if isinstance(event, FinalReply):
                break  # the adapter stopped at the final (delivery failed, process going down)
    assert await _statuses(storage) == [("user", "ok"), ("assistant", "streaming")]
    await service.record_delivery(message.trace_id, False)
    assert await _statuses(storage) == [("user", "ok"), ("assistant", "undelivered")]


async def test_an_adapter_that_died_at_the_final_leaves_it_for_the_sweep(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, reply_lease_s=0.3)
    service.take_interrupted("console")
    async with contextlib.aclosing(service.handle(incoming("学而时习之"))) as events:
        async for event in events:
            if isinstance(event, FinalReply):
                break
    await asyncio.sleep(0.4)
    service.watch._healthy_since = -1e9
    assert [r.chat_key for r in await service.watch.tick()] == ["console:c1"]
    assert await _statuses(storage) == [("user", "interrupted"), ("assistant", "interrupted")]


async def test_a_confirmation_storage_missed_is_written_later_and_keeps_the_row_alive(tmp_path):
    storage = sqlite_storage(tmp_path)
    failing = FailingReplies(storage.replies, set())
    storage.replies = failing
    service = make_service(storage, reply_lease_s=0.3)
    failing.confirm = _raises  # the database drops just as the final text was delivered
    await _drain(service)
    assert await _statuses(storage) == [("user", "ok"), ("assistant", "streaming")]
    await asyncio.sleep(0.4)
    service.watch._healthy_since = -1e9
    del failing.confirm  # back: the next tick writes the status (and no sweep takes it for dead)
    assert await service.watch.tick() == []
    assert await _statuses(storage) == [("user", "ok"), ("assistant", "ok")]


async def _raises(*args, **kwargs):
    raise ConnectionRefusedError("down")


async def test_a_reply_cut_before_anything_was_shown_is_handed_out_by_its_chat(tmp_path):
    storage = sqlite_storage(tmp_path)
    await asked(storage, "telegram:8/77", "early")  # killed before its first message existed
    service = make_service(storage, reply_lease_s=0.2)
    assert service.take_interrupted("telegram") == [] and service.take_interrupted("discord") == []
    await asyncio.sleep(0.3)
    service.watch._healthy_since = -1e9
    await service.watch.tick()
    assert service.take_interrupted("discord") == []
    assert service.take_interrupted("telegram") == [ShownIn("telegram", "8/77")]  # the adapter tells the chat anew
