"""call_sync_or_async: the one way core awaits a callable that may be sync (blocking) or async."""

from __future__ import annotations

import threading

from core.tools.server import call_sync_or_async


async def test_sync_callable_runs_in_a_worker_thread():
    loop_thread = threading.get_ident()

    def blocking(a, *, b):
        return a + b, threading.get_ident()

    total, thread = await call_sync_or_async(blocking, 1, b=2)
    assert total == 3 and thread != loop_thread


async def test_async_callable_is_awaited_on_the_loop():
    loop_thread = threading.get_ident()

    async def coro(a, *, b):
        return a * b, threading.get_ident()

    product, thread = await call_sync_or_async(coro, 3, b=4)
    assert product == 12 and thread == loop_thread


async def test_awaitable_returned_by_a_sync_callable_is_awaited():
    async def inner(x):
        return x + 1

    def factory(x):
        return inner(x)

    assert await call_sync_or_async(factory, 41) == 42


async def test_keyword_named_fn_goes_to_the_callable():
    def takes_fn(fn):
        return fn

    assert await call_sync_or_async(takes_fn, fn="passed") == "passed"
