"""EngineWrapper: every method of the Engine port passes through to the inner engine, once, for
every wrapper in front of the engine (the digest's tap, the metrics' observer)."""

from __future__ import annotations

import typing

import pytest

from adapters.common.metrics import FuziMetrics, ObservedEngine
from core.engine.wrapper import EngineWrapper
from core.events import FinalReply
from core.ports import Engine, LookupResult
from core.schedule.digest import Digest, DigestTap
from core.shown_in import ShownIn
from core.types import Incoming
from tests.fakes.engine import COMMANDS, SKILLS, ScriptedEngine

PORT = {name for name in vars(Engine) if not name.startswith("_")}


class _NoDigest(Digest):
    def __init__(self) -> None:  # records nothing: only the pass-through is under test
        pass

    async def record(self, incoming: Incoming) -> bool:
        return False


def test_the_base_writes_every_method_of_the_port():
    assert PORT >= {"handle", "commands", "record_shown", "look_up", "register_admin_check"}
    assert PORT <= set(vars(EngineWrapper))  # none left to the protocol's empty bodies


def test_the_port_is_typed_without_any():
    hints = {name: typing.get_type_hints(getattr(Engine, name)) for name in PORT}
    assert hints["look_up"]["return"] is LookupResult
    assert all(typing.Any not in h.values() for h in hints.values()), hints


@pytest.mark.parametrize(
    "wrap",
    [EngineWrapper, lambda inner: DigestTap(inner, _NoDigest()), lambda inner: ObservedEngine(inner, FuziMetrics())],
    ids=["base", "digest_tap", "observed"],
)
async def test_every_call_reaches_the_inner_engine(wrap):
    inner = ScriptedEngine(interrupted=[ShownIn("telegram", "1", 2), ShownIn("discord", "3", 4)])
    engine: Engine = wrap(inner)
    incoming = Incoming("telegram", "7", "7", "何为仁？")
    assert [e async for e in engine.handle(incoming)] == [FinalReply("echo: 何为仁？")]
    assert inner.received == [incoming]
    assert engine.commands() == list(COMMANDS) and engine.skills() == list(SKILLS)
    await engine.record_shown("t1", ShownIn("telegram", "7", 1))
    await engine.record_delivery("t1", False)
    assert await engine.record_feedback("telegram", "telegram:7", "👍", where=ShownIn("telegram", "7", 1)) == "ignored"
    assert engine.take_interrupted("telegram") == [ShownIn("telegram", "1", 2)]
    assert isinstance(await engine.look_up("telegram", "7", "仁", 3), LookupResult)
    check = object()
    engine.register_admin_check("telegram", check)
    assert inner.shown == [("t1", ShownIn("telegram", "7", 1))] and inner.deliveries == [("t1", False)]
    assert inner.feedback == [("telegram", "telegram:7", "👍")] and inner.admin_checks == {"telegram": check}
