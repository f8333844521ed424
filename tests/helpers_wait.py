"""A bounded wait for a state the test cannot await: poll until it holds, fail after `timeout`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def eventually(predicate: Callable, timeout: float = 10.0):
    """Poll an async or plain predicate (a database read: nothing to wait on) until it is truthy."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if loop.time() > end:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.02)
