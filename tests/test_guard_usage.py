"""Token usage per person per day in SQLite, the daily budget and /usage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlmodel import create_engine

from core.guards.guard import FuziGuard
from core.guards.limits import InMemoryRateLimiter, Quota
from core.guards.usage import UsageStore
from core.llm.types import Usage
from core.ports import CommandResult, Refusal, Turn
from core.types import Incoming


class WallClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 22, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def turn(person: int, *, admin: bool = False, text: str = "何为仁？") -> Turn:
    return Turn(Incoming("telegram", str(person), "c", text), person_id=person, skill="teaching", is_admin=admin)


@pytest.fixture
def clock() -> WallClock:
    return WallClock()


@pytest.fixture
def store(tmp_path, clock: WallClock) -> UsageStore:
    usage = UsageStore(create_engine(f"sqlite:///{tmp_path / 'usage.sqlite3'}"), now=clock)
    usage.create_table()
    return usage


def make_guard(store: UsageStore, budget: int | None = None) -> FuziGuard:
    return FuziGuard(InMemoryRateLimiter(Quota(per_minute=1000, per_day=1000)), usage=store, daily_token_budget=budget)


async def test_usage_is_summed_per_person_and_day(store: UsageStore, clock: WallClock) -> None:
    guard = make_guard(store)
    await guard.record_usage(turn(1), Usage(100, 20))
    await guard.record_usage(turn(1), Usage(50, 5))
    await guard.record_usage(turn(2), Usage(7, 3))
    mine = await store.for_person(1)
    assert (mine.requests, mine.prompt_tokens, mine.completion_tokens, mine.total_tokens) == (2, 150, 25, 175)
    total = await store.totals()
    assert (total.people, total.requests, total.total_tokens) == (2, 3, 185)
    clock.now += timedelta(hours=3)  # next UTC day
    assert (await store.for_person(1)).total_tokens == 0
    assert (await store.for_person(1, "2026-11-30")).total_tokens == 175


async def test_budget_refuses_until_tomorrow_once_spent(store: UsageStore, clock: WallClock) -> None:
    guard = make_guard(store, budget=200)
    assert await guard.admit(turn(1)) is None
    await guard.record_usage(turn(1), Usage(150, 50))  # exactly the budget
    refusal = await guard.admit(turn(1))
    assert isinstance(refusal, Refusal) and refusal.reason == "token_budget"
    assert refusal.retry_after_s == pytest.approx(2 * 3600)
    assert "2 小时后再问" in refusal.text
    other = await guard.admit(turn(2))
    assert not isinstance(other, Refusal)
    assert not isinstance(await guard.admit(turn(1, admin=True)), Refusal)  # admins are exempt
    clock.now += timedelta(hours=2)
    assert not isinstance(await guard.admit(turn(1)), Refusal)


async def test_usage_command_shows_own_figures_and_totals_to_admins(store: UsageStore) -> None:
    guard = make_guard(store, budget=1000)
    await guard.record_usage(turn(1), Usage(100, 20))
    await guard.record_usage(turn(2), Usage(300, 80))
    mine = await guard.usage_command(turn(1), "")
    assert isinstance(mine, CommandResult)
    assert "120" in mine.text and "380" not in mine.text and "剩余 left 880" in mine.text
    assert mine.extra["person"]["total_tokens"] == 120 and "total" not in mine.extra
    admin = await guard.usage_command(turn(1, admin=True), "")
    assert admin.extra["total"] == {
        "requests": 2,
        "prompt_tokens": 400,
        "completion_tokens": 100,
        "total_tokens": 500,
        "people": 2,
    }
    assert "2 人" in admin.text


async def test_usage_command_is_registered_on_the_router(store: UsageStore) -> None:
    registered = {}

    class Router:
        def register(self, name, handler, *, summary_zh, summary_en):
            registered[name] = (handler, summary_zh, summary_en)

    guard = make_guard(store)
    guard.register_commands(Router())
    handler, zh, en = registered["usage"]
    assert zh and en
    assert isinstance(await handler(turn(3), ""), CommandResult)


async def test_recording_failure_is_logged_not_raised(tmp_path) -> None:
    store = UsageStore(create_engine(f"sqlite:///{tmp_path / 'missing.sqlite3'}"))  # no table
    guard = make_guard(store)
    await guard.record_usage(turn(1), Usage(1, 1))  # must not raise
