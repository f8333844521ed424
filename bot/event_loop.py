"""The event loop the long-running front doors (`fuzi serve`, `fuzi run`) run on: uvloop where it is
installed (a runtime dependency off Windows), asyncio's own loop otherwise."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor, or None (asyncio's default) where uvloop is not importable."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on the loop of `loop_factory()`."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
