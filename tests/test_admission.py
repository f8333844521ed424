"""One reply in flight per person (RunningReplies, the only owner of that rule), then the limits."""

from __future__ import annotations

import asyncio

import pytest

from core.engine.admission import Admission, Busy, NotAdmitted, RunningReplies
from core.guards import FuziGuard, InMemoryRateLimiter, Quota
from core.ports import Turn
from core.types import Incoming


def turn(person: int = 1, text: str = "夫子，何为仁？") -> Turn:
    return Turn(Incoming(platform="console", user_id=f"u{person}", chat_id="c", text=text), person, "teaching")


async def test_a_held_slot_makes_the_person_busy_until_the_body_ends() -> None:
    running = RunningReplies()
    async with running.hold(1):
        assert running.is_running(1) and not running.is_running(2)
        with pytest.raises(Busy):
            async with running.hold(1):
                pass
        async with running.hold(2):  # someone else is not affected
            pass
    assert not running.is_running(1)


async def test_the_slot_is_freed_when_the_body_fails() -> None:
    running = RunningReplies()
    with pytest.raises(RuntimeError):
        async with running.hold(1):
            raise RuntimeError("boom")
    async with running.hold(1):
        pass


async def test_cancel_stops_the_attached_task_and_says_whether_there_was_one() -> None:
    running = RunningReplies()
    assert not await running.cancel(1)
    async with running.hold(1):
        task = asyncio.create_task(asyncio.sleep(30))
        running.attach(1, task)
        assert await running.cancel(1)
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not await running.cancel(1)  # done already


async def test_parallel_admissions_of_one_person_admit_exactly_one() -> None:
    admission = Admission(RunningReplies(), FuziGuard(InMemoryRateLimiter(Quota())))
    inside = asyncio.Event()
    release = asyncio.Event()

    async def ask() -> str:
        try:
            async with admission.admit(turn()):
                inside.set()
                await release.wait()
                return "answered"
        except NotAdmitted as no:
            return no.reason

    tasks = [asyncio.create_task(ask()) for _ in range(8)]
    await inside.wait()
    await asyncio.sleep(0)
    release.set()
    results = await asyncio.gather(*tasks)
    assert results.count("answered") == 1 and results.count("busy") == 7


async def test_busy_messages_do_not_use_up_the_quota() -> None:
    admission = Admission(RunningReplies(), FuziGuard(InMemoryRateLimiter(Quota(per_minute=2, group_per_minute=None))))
    async with admission.admit(turn()):
        for _ in range(5):
            with pytest.raises(NotAdmitted) as busy:
                async with admission.admit(turn()):
                    pass
            assert busy.value.reason == "busy" and busy.value.status == "busy"
    async with admission.admit(turn()):  # the second of two per minute
        pass
    with pytest.raises(NotAdmitted) as limited:
        async with admission.admit(turn(text="What is ren?")):
            pass
    assert limited.value.reason == "rate_limited" and limited.value.extra["limit"] == "per_minute"
    assert "Please ask again in" in limited.value.text
    assert not admission.running.is_running(1)
