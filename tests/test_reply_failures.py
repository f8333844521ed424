"""No reply outlives its failure: whatever the reply store does, the stream ends and the person is free.

A storage whose reply store raises (the database went away) at the start of a reply, at its final
write, or while the reply runs past several lease renewals: the person is told in one line, the
stream ends, the person's slot (and Redis lease) is released, and the next message is answered.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.exc import OperationalError

from core.events import FinalReply, Notice
from core.storage.replies import ReplyRepo
from core.storage.repos import MessageRepo
from tests.helpers_db import redis_client, redis_prefix  # noqa: F401
from tests.helpers_engine import incoming, make_service, sqlite_storage

pytestmark = pytest.mark.timeout(60)


class _Down(OperationalError):
    def __init__(self) -> None:
        super().__init__("SELECT 1", {}, ConnectionRefusedError("connection refused"))


class FailingReplies(ReplyRepo):
    """The real reply store, except that the named methods raise as a database that went away does."""

    def __init__(self, inner: ReplyRepo, failing: set[str]) -> None:
        self.__dict__.update(inner.__dict__)
        self.failing = failing

    def _maybe_fail(self, name: str) -> None:
        if name in self.failing:
            raise _Down()

    async def finish(self, chat_key, trace_id, text, level, status, citations=(), *, stats=None, then=None) -> int:
        self._maybe_fail("finish")
        return await super().finish(chat_key, trace_id, text, level, status, citations, stats=stats, then=then)

    async def discard(self, trace_id: str) -> None:
        self._maybe_fail("discard")
        await super().discard(trace_id)


async def _events(service, message, timeout_s: float = 10.0) -> list:
    async def run() -> list:
        return [event async for event in service.handle(message)]

    return await asyncio.wait_for(run(), timeout_s)  # before the fix: waits forever


class FailingMessages(MessageRepo):
    """The real message store; a question stored with its reply's row fails when the reply's start
    does (the row is written with the question: `MessageRepo.add(reply=True)`)."""

    def __init__(self, inner: MessageRepo, replies: FailingReplies) -> None:
        self.__dict__.update(inner.__dict__)
        self.replies = replies

    async def add(self, chat_key: str, role: str, text: str, **kw) -> int:
        if kw.get("reply"):
            self.replies._maybe_fail("start")
        return await super().add(chat_key, role, text, **kw)


def _fail(storage, *names: str) -> FailingReplies:
    storage.replies = FailingReplies(storage.replies, set(names))
    storage.messages = FailingMessages(storage.messages, storage.replies)
    return storage.replies


@pytest.mark.parametrize(
    "failing",
    [{"start", "discard"}, {"finish", "discard"}, {"finish"}, {"start"}],
    ids=["start", "final-write", "final-write-discard-ok", "start-discard-ok"],
)
async def test_storage_failing_ends_the_stream_tells_the_person_and_frees_them(tmp_path, failing):
    storage = sqlite_storage(tmp_path)
    replies = _fail(storage, *failing)
    service = make_service(storage)  # no LLM: an L2 answer
    events = await _events(service, incoming("学而时习之"))
    assert isinstance(events[-1], Notice) and events[-1].reason == "error", events
    person = await storage.identities.resolve("console", "alice", "alice")
    assert not service.admission.running.is_running(person)
    replies.failing.clear()  # the database is back: the next question is answered, not "busy"
    events = await _events(service, incoming("温故而知新"))
    assert isinstance(events[-1], FinalReply), events


async def test_cancel_while_storage_is_down_still_ends(tmp_path):
    storage = sqlite_storage(tmp_path)
    gate, entered = asyncio.Event(), asyncio.Event()

    class Slow:
        async def search(self, query, *, k=3, corpus="all"):
            entered.set()
            await gate.wait()
            from types import SimpleNamespace

            return SimpleNamespace(results=[])

    service = make_service(storage, retriever=Slow())
    replies = _fail(storage)
    got: list = []

    async def ask() -> None:
        async for event in service.handle(incoming("学而时习之")):
            got.append(event)

    task = asyncio.create_task(ask())
    await asyncio.wait_for(entered.wait(), 20)  # the reply is running
    replies.failing.update({"finish", "discard"})
    person = await storage.identities.resolve("console", "alice", "alice")
    assert await service.admission.running.cancel(person)
    await asyncio.wait_for(task, 10)
    assert not service.admission.running.is_running(person)


async def test_lease_renewal_failing_while_storage_is_down_releases_the_person(tmp_path, redis_prefix, redis_client):  # noqa: F811
    from core.engine.running_redis import RedisRunningReplies

    url, prefix = redis_prefix
    client = redis_client(url)
    running = RedisRunningReplies(client, prefix=prefix, lease_s=0.3)
    await running.start()
    renewals = 0

    async def renew_fails(*args, **kwargs):
        nonlocal renewals
        renewals += 1
        raise OSError("network unreachable")  # not a RedisError: the renewer must survive it too

    running._renew = renew_fails
    gate = asyncio.Event()

    class Slow:
        async def search(self, query, *, k=3, corpus="all"):
            await gate.wait()
            from types import SimpleNamespace

            return SimpleNamespace(results=[])

    storage = sqlite_storage(tmp_path)
    service = make_service(storage, retriever=Slow(), running=running)
    replies = _fail(storage)
    try:
        task = asyncio.create_task(_events(service, incoming("学而时习之"), timeout_s=30))
        for _ in range(200):  # several renewals fail meanwhile
            await asyncio.sleep(0.1)
            if renewals >= 2:
                break
        replies.failing.update({"finish", "discard"})
        gate.set()
        events = await task
        assert isinstance(events[-1], Notice) and events[-1].reason == "error", events
        assert renewals >= 2
        person = await storage.identities.resolve("console", "alice", "alice")
        assert not running.is_running(person)
        assert not await client.exists(f"{prefix}reply:{person}")  # released, not left to expire
    finally:
        await running.aclose()
