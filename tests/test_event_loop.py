"""bot/event_loop.py: `fuzi serve` and `fuzi run` run on uvloop where it is installed, on asyncio's loop otherwise."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bot.event_loop import run


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_runs_on_asyncios_loop_without_uvloop(monkeypatch):
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    assert run(_loop_module()).startswith("asyncio")


def test_runs_on_uvloop_where_installed():
    pytest.importorskip("uvloop")
    assert run(_loop_module()).startswith("uvloop")


def test_returns_the_result_and_raises_the_error():
    async def fail() -> None:
        raise KeyError("x")

    assert run(asyncio.sleep(0, result=7)) == 7
    with pytest.raises(KeyError):
        run(fail())
