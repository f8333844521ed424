"""The inbox's rules (core/inbox) on each store: the SQL one on SQLite and PostgreSQL, and memory.

Two `Inbox` objects on one store play two processes; a clock the test moves plays time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.inbox import Inbox, InboxEntry, InboxHandlers, MemoryInboxStore
from core.storage import create_engine_and_tables
from core.storage.inbox import SqlInboxStore
from tests.helpers_db import postgres_url  # noqa: F401

T0 = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class Platform:
    """What an adapter does with orphans: records them."""

    def __init__(self) -> None:
        self.replayed: list[InboxEntry] = []
        self.lost: list[InboxEntry] = []

    def handlers(self) -> InboxHandlers:
        async def replay(entry: InboxEntry) -> None:
            self.replayed.append(entry)

        async def lost(entry: InboxEntry) -> None:
            self.lost.append(entry)

        return InboxHandlers(replay=replay, lost=lost)


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
def store(request, tmp_path):
    if request.param == "memory":
        yield MemoryInboxStore()
        return
    url = (
        f"sqlite:///{tmp_path / 'fuzi.sqlite3'}"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    engine = create_engine_and_tables(url)
    yield SqlInboxStore(engine)
    engine.dispose()


def inbox(store, clock: Clock, **kw) -> Inbox:
    return Inbox(store, lease_s=3.0, max_age_s=600.0, clock=clock, **kw)


async def test_a_repeat_is_refused_and_the_payload_kept_as_sent(store):
    clock = Clock()
    a, b = inbox(store, clock), inbox(store, clock)
    payload = {"update_id": 7, "message": {"text": "何为仁？", "chat": {"id": 5}}}
    assert await a.accept("telegram", "7", payload) is True
    assert await b.accept("telegram", "7", payload) is False  # another replica got the same update
    assert await a.accept("discord", "7", payload) is True  # keys are per platform
    platform = Platform()
    b.register("telegram", platform.handlers())
    clock.advance(10)  # a is silent: b takes its entry over
    assert await b.tick() == 1
    assert platform.replayed[0].payload == payload and platform.replayed[0].key == "7"


async def test_a_live_owner_keeps_its_entries_and_a_dead_ones_are_claimed_once(store):
    clock = Clock()
    a, b, c = inbox(store, clock), inbox(store, clock), inbox(store, clock)
    await a.accept("telegram", "1", {"n": 1})
    seen_b, seen_c = Platform(), Platform()
    b.register("telegram", seen_b.handlers())
    c.register("telegram", seen_c.handlers())
    for _ in range(5):  # a renews every lease/3: never stale
        clock.advance(1.0)
        await a.tick()
        assert await b.tick() == 0 and await c.tick() == 0
    clock.advance(a.stale_after_s + 0.1)  # a died
    assert await b.tick() + await c.tick() == 1  # exactly one claimer
    assert len(seen_b.replayed) + len(seen_c.replayed) == 1
    winner = b if seen_b.replayed else c
    clock.advance(1.0)
    await winner.tick()  # the new owner's heartbeat keeps it from the others
    assert await (c if winner is b else b).tick() == 0


async def test_done_entries_are_not_handed_over_and_are_purged_after_a_day(store):
    clock = Clock()
    a, b = inbox(store, clock), inbox(store, clock)
    await a.accept("telegram", "1", {})
    await a.done("telegram", "1")
    platform = Platform()
    b.register("telegram", platform.handlers())
    clock.advance(60)
    assert await b.tick() == 0 and platform.replayed == []
    assert await a.accept("telegram", "1", {}) is False  # a redelivery within the day is still a repeat
    clock.advance(86_400 + 700)
    await b.tick()  # the purge
    assert await a.accept("telegram", "1", {}) is True


async def test_an_orphan_older_than_max_age_is_told_lost_not_answered(store):
    clock = Clock()
    a, b = inbox(store, clock), inbox(store, clock)
    await a.accept("telegram", "old", {"text": "早先的问题"})
    platform = Platform()
    b.register("telegram", platform.handlers())
    clock.advance(601)  # b was down too, or busy: the update waited longer than FUZI_ENGINE_INBOX_MAX_AGE_S
    assert await b.tick() == 1
    assert platform.replayed == [] and [e.key for e in platform.lost] == ["old"]
    clock.advance(60)
    assert await inbox(store, clock).tick() == 0  # closed: told once


async def test_an_update_that_kills_every_process_is_given_up_after_max_attempts(store):
    clock = Clock()
    await inbox(store, clock).accept("telegram", "poison", {})
    platform = Platform()
    for _ in range(3):  # each new owner claims it, replays it, and dies with it
        clock.advance(10)
        owner = inbox(store, clock, max_attempts=3)
        owner.register("telegram", platform.handlers())
        assert await owner.tick() == 1
    clock.advance(10)
    last = inbox(store, clock, max_attempts=3)
    last.register("telegram", platform.handlers())
    assert await last.tick() == 1
    assert len(platform.replayed) == 3 and len(platform.lost) == 1


async def test_only_platforms_running_here_are_claimed(store):
    clock = Clock()
    await inbox(store, clock).accept("discord", "m1", {})
    telegram_only = inbox(store, clock)
    telegram_only.register("telegram", Platform().handlers())
    clock.advance(60)
    assert await telegram_only.tick() == 0  # a Telegram process could not answer a Discord message


async def test_the_only_process_on_its_store_adopts_what_its_predecessor_left_at_once(store):
    clock = Clock()
    dead = inbox(store, clock)
    await dead.accept("telegram", "1", {})
    clock.advance(0.5)  # restarted at once: the entry is far from stale
    restarted = inbox(store, clock, exclusive=True)
    await restarted.accept("telegram", "2", {})  # its own new update is not an orphan
    platform = Platform()
    restarted.register("telegram", platform.handlers())
    assert await restarted.tick() == 1
    assert [e.key for e in platform.replayed] == ["1"]


async def test_a_failed_replay_closes_the_entry_as_failed(store):
    clock = Clock()
    await inbox(store, clock).accept("telegram", "1", {})

    async def broken(entry: InboxEntry) -> None:
        raise ValueError("malformed payload")

    b = inbox(store, clock)
    platform = Platform()
    b.register("telegram", InboxHandlers(replay=broken, lost=platform.handlers().lost))
    clock.advance(10)
    assert await b.tick() == 1
    clock.advance(10)
    assert await inbox(store, clock).tick() == 0


async def test_a_close_that_fails_is_retried_on_a_later_tick():
    clock = Clock()
    store = MemoryInboxStore()
    calls = []
    real_finish = store.finish

    async def flaky(*args):
        calls.append(args)
        if len(calls) == 1:
            raise ConnectionError("database down")
        await real_finish(*args)

    store.finish = flaky  # type: ignore[method-assign]
    a = inbox(store, clock)
    await a.accept("telegram", "1", {})
    await a.done("telegram", "1")  # logged, kept for later
    await a.tick()
    assert len(calls) == 2
    b = inbox(store, clock)
    b.register("telegram", Platform().handlers())
    clock.advance(60)
    assert await b.tick() == 0  # closed on the retry: nobody replays an answered update
