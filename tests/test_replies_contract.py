"""One contract for both `RunningReplies` implementations: in process, and Redis leases (real server)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from core.engine.admission import Busy, RunningReplies
from core.engine.running_redis import RedisRunningReplies
from tests.helpers_db import redis_client, redis_prefix  # noqa: F401
from tests.helpers_process import free_port

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["memory", "redis"])
async def make_running(request, redis_client):
    """Factory of RunningReplies sharing one state: Redis ones share the server (as N processes)."""
    made: list[RunningReplies] = []

    async def factory(**kwargs) -> RunningReplies:
        if request.param == "memory":
            if not made:
                made.append(RunningReplies())
            return made[0]
        url, prefix = request.getfixturevalue("redis_prefix")
        running = RedisRunningReplies(redis_client(url), prefix=prefix, **kwargs)
        await running.start()
        made.append(running)
        return running

    yield factory
    for running in made:
        if isinstance(running, RedisRunningReplies):
            await running.aclose()


async def can_hold(running: RunningReplies, person: int) -> bool:
    """True when the person's slot could be taken now (it is given back at once)."""
    try:
        async with running.hold(person):
            return True
    except Busy:
        return False


async def test_one_reply_per_person_across_processes(make_running):
    a, b = await make_running(), await make_running()
    async with a.hold(1):
        assert await can_hold(b, 1) is False and await can_hold(a, 1) is False
        assert await can_hold(b, 2) is True
    assert await can_hold(b, 1) is True


async def test_the_slot_is_freed_however_the_body_ends(make_running):
    a, b = await make_running(), await make_running()
    with contextlib.suppress(RuntimeError):
        async with a.hold(4):
            raise RuntimeError("the reply failed")
    assert await can_hold(b, 4) is True


async def test_cancel_reaches_the_process_running_the_reply(make_running):
    a, b = await make_running(), await make_running()
    async with a.hold(7):
        task = asyncio.create_task(asyncio.sleep(30))
        a.attach(7, task)
        assert await b.cancel(7) is True
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)
    assert await b.cancel(7) is False  # nothing runs any more


async def test_a_working_owner_keeps_its_lease(redis_prefix, redis_client):
    url, prefix = redis_prefix
    a = RedisRunningReplies(redis_client(url), prefix=prefix, lease_s=0.5)
    b = RedisRunningReplies(redis_client(url), prefix=prefix, lease_s=0.5)
    try:
        async with a.hold(3):
            await asyncio.sleep(1.6)  # three lease lifetimes: only renewal keeps it
            assert await can_hold(b, 3) is False
        assert await can_hold(b, 3) is True
    finally:
        await a.aclose()
        await b.aclose()


_HOLDER = """
import asyncio, sys
from bot.shared_state import redis_client
from core.engine.running_redis import RedisRunningReplies
async def main():
    r = RedisRunningReplies(redis_client(sys.argv[1]), prefix=sys.argv[2], lease_s=1.0)
    async with r.hold(5):
        print("held", flush=True)
        await asyncio.sleep(60)
asyncio.run(main())
"""


@pytest.mark.processes
async def test_a_killed_process_frees_the_person_within_the_lease(redis_prefix, redis_client):
    url, prefix = redis_prefix
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, url, prefix],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    other = RedisRunningReplies(redis_client(url), prefix=prefix, lease_s=1.0)
    try:
        assert await asyncio.to_thread(holder.stdout.readline) == "held\n"
        await asyncio.sleep(1.2)
        assert await can_hold(other, 5) is False  # still renewed by the live holder
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        waited = 0.0
        while not await can_hold(other, 5):
            await asyncio.sleep(0.1)
            waited += 0.1
            assert waited < 3.0, "the dead process's lease did not expire"
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.stdout.close()
        await other.aclose()


async def test_redis_down_fails_open_but_keeps_one_per_person_here(redis_client):
    port = free_port()
    running = RedisRunningReplies(redis_client(f"redis://127.0.0.1:{port}/0"), prefix="down:")
    try:
        async with running.hold(1):
            assert await can_hold(running, 1) is False
        assert await can_hold(running, 1) is True
        assert await running.cancel(2) is False
    finally:
        await running.aclose()
