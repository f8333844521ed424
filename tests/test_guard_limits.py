"""Rate limits: sliding windows at and just past each boundary, in-flight, groups, linked accounts, admins."""

from __future__ import annotations

import asyncio

import pytest

from core.guards.guard import FuziGuard
from core.guards.limits import DAY_S, InMemoryRateLimiter, Quota
from core.ports import Refusal, Turn
from core.types import Incoming
from tests.fakes.clock import FakeClock


def make_turn(
    person: int = 1,
    *,
    platform: str = "telegram",
    user: str = "u1",
    chat: str = "c1",
    group: bool = False,
    admin: bool = False,
    text: str = "夫子，何为仁？",
) -> Turn:
    incoming = Incoming(platform=platform, user_id=user, chat_id=chat, text=text, is_group=group)
    return Turn(incoming=incoming, person_id=person, skill="teaching", is_admin=admin)


def make_guard(clock: FakeClock, **quota: int | None) -> FuziGuard:
    limits = {"per_minute": 15, "per_day": 150, "group_per_minute": None} | quota
    return FuziGuard(InMemoryRateLimiter(Quota(**limits), clock=clock))


async def ask(guard: FuziGuard, turn: Turn) -> Refusal | None:
    """Count one question; the refusal, or None when admitted."""
    return await guard.admit(turn)


async def test_minute_window_allows_15_then_refuses_until_the_oldest_expires() -> None:
    clock = FakeClock()
    guard = make_guard(clock)
    for _ in range(15):
        assert await ask(guard, make_turn()) is None
        clock.advance(1)
    refusal = await ask(guard, make_turn())  # 16th, 15 s after the first
    assert refusal is not None and refusal.reason == "per_minute"
    assert refusal.retry_after_s == pytest.approx(45.0)
    assert "45 秒后再问" in refusal.text
    clock.advance(44.9)
    assert (await ask(guard, make_turn())) is not None  # just before the first one leaves the window
    clock.advance(0.1)
    assert await ask(guard, make_turn()) is None  # exactly 60 s after the first


async def test_day_window_allows_150_then_refuses_for_the_rest_of_24h() -> None:
    clock = FakeClock()
    guard = make_guard(clock, per_minute=1000)
    first = clock.now
    for _ in range(150):
        assert await ask(guard, make_turn()) is None
        clock.advance(10)
    refusal = await ask(guard, make_turn())
    assert refusal is not None and refusal.reason == "per_day"
    expected = first + DAY_S - clock.now
    assert refusal.retry_after_s == pytest.approx(expected)
    assert "小时" in refusal.text
    clock.now = first + DAY_S - 0.01
    assert await ask(guard, make_turn()) is not None
    clock.now = first + DAY_S
    assert await ask(guard, make_turn()) is None


async def test_linked_accounts_share_limits() -> None:
    guard = make_guard(FakeClock(), per_minute=2)
    tg = make_turn(7, platform="telegram", user="111")
    dc = make_turn(7, platform="discord", user="999")
    assert await ask(guard, tg) is None
    assert await ask(guard, dc) is None
    assert (await ask(guard, tg)).reason == "per_minute"
    assert (await ask(guard, dc)).reason == "per_minute"
    assert await guard.admit(make_turn(8)) is None  # someone else is not affected


async def test_group_limit_counts_everyone_in_the_group() -> None:
    clock = FakeClock()
    guard = make_guard(clock, group_per_minute=3)
    for person in (1, 2, 3):
        assert await ask(guard, make_turn(person, chat="g", group=True)) is None
    refusal = await ask(guard, make_turn(4, chat="g", group=True))
    assert refusal is not None and refusal.reason == "group_per_minute"
    assert refusal.retry_after_s == pytest.approx(60.0)
    assert await ask(guard, make_turn(4, chat="other", group=True)) is None  # another group
    assert await ask(guard, make_turn(4, chat="dm", group=False)) is None  # a DM is not a group
    clock.advance(60)
    assert await ask(guard, make_turn(5, chat="g", group=True)) is None


async def test_admins_are_exempt() -> None:
    guard = make_guard(FakeClock(), per_minute=1, per_day=1, group_per_minute=1)
    results = [await guard.admit(make_turn(admin=True, group=True, chat="g")) for _ in range(5)]
    assert results == [None] * 5
    assert await ask(guard, make_turn(2, chat="g", group=True)) is None  # admins did not use the group quota


async def test_english_speakers_get_english_refusals() -> None:
    guard = make_guard(FakeClock(), per_minute=1)
    turn = make_turn(text="What is ren?")
    assert await ask(guard, turn) is None
    refusal = await ask(guard, turn)
    assert "Please ask again in 60 seconds." in refusal.text


async def test_idle_keys_are_swept() -> None:
    clock = FakeClock()
    limiter = InMemoryRateLimiter(Quota(group_per_minute=None), clock=clock)
    for person in range(3000):
        await limiter.acquire(f"p{person}", None)
    clock.advance(DAY_S + 1)
    for _ in range(6500):
        await limiter.acquire("active", None)
        clock.advance(60)
    assert len(limiter._day) < 10 and len(limiter._minute) < 10
