"""QA: the terminal adapter never passes control sequences from replies to the user's terminal."""

from __future__ import annotations

import io

import pytest

from adapters.console import ConsoleAdapter, ConsoleIdentity
from core.events import FinalReply, Notice, TextDelta

HOSTILE = "子曰\x1b]52;c;cm0gLXJmIH4=\x07：\x1b[2J学而\x9b31m时习之\x00\x08。\n\t第二行"


class Scripted:
    """Engine double: answers every message with the given events."""

    def __init__(self, *events):
        self.events = events

    async def handle(self, incoming):
        for event in self.events:
            yield event


@pytest.mark.parametrize("interactive", [False, True])
@pytest.mark.parametrize("events", [
    (FinalReply(HOSTILE, (), 0, "t1"),),
    (TextDelta(HOSTILE[:9]), TextDelta(HOSTILE[9:]), FinalReply(HOSTILE, (), 0, "t1")),
    (Notice(HOSTILE, "command", "t1"),),
])
async def test_control_sequences_are_not_written_to_the_terminal(events, interactive):
    out = io.StringIO()
    adapter = ConsoleAdapter(Scripted(*events), ConsoleIdentity("u1", "dm-u1"), out, interactive=interactive)
    await adapter.say("你好")
    written = out.getvalue()
    assert not any(c in written for c in "\x1b\x07\x9b\x00\x08"), repr(written)
    assert "子曰" in written and "学而" in written and "\n\t第二行" in written  # the words stay
