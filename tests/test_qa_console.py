"""QA: the terminal adapter never passes control sequences from replies to the user's terminal."""

from __future__ import annotations

import io

import pytest

from adapters.console import ConsoleAdapter, ConsoleIdentity
from core.events import FinalReply, Notice, TextDelta
from tests.fakes.engine import ScriptedEngine

HOSTILE = "子曰\x1b]52;c;cm0gLXJmIH4=\x07：\x1b[2J学而\x9b31m时习之\x00\x08。\n\t第二行"


@pytest.mark.parametrize("interactive", [False, True])
@pytest.mark.parametrize(
    "events",
    [
        (FinalReply(HOSTILE, (), 0, "t1"),),
        (TextDelta(HOSTILE[:9]), TextDelta(HOSTILE[9:]), FinalReply(HOSTILE, (), 0, "t1")),
        (Notice(HOSTILE, "command", "t1"),),
    ],
)
async def test_control_sequences_are_not_written_to_the_terminal(events, interactive):
    out = io.StringIO()
    adapter = ConsoleAdapter(
        ScriptedEngine(default=events), ConsoleIdentity("u1", "dm-u1"), out, interactive=interactive
    )
    await adapter.say("你好")
    written = out.getvalue()
    assert not any(c in written for c in "\x1b\x07\x9b\x00\x08"), repr(written)
    assert "子曰" in written and "学而" in written and "\n\t第二行" in written  # the words stay


# ---------------------------------------------------------------- /cancel while a reply streams
import asyncio  # noqa: E402

from core.llm.client import OpenAIChatClient  # noqa: E402
from tests.fakes.openai_server import fake_llm  # noqa: E402,F401
from tests.helpers_engine import make_service, sqlite_storage  # noqa: E402


class Typist:
    """Interactive input: the question, then (once Fuzi has started answering) the given lines."""

    def __init__(self, out: io.StringIO, question: str, *later: str):
        self.out, self.question, self.later = out, question, later

    async def __aiter__(self):
        yield self.question
        for _ in range(500):  # wait until the answer is on screen
            if "子曰" in self.out.getvalue():
                break
            await asyncio.sleep(0.01)
        for line in self.later:
            yield line


async def test_interactive_cancel_stops_the_reply_in_progress(tmp_path, fake_llm):
    storage = sqlite_storage(tmp_path)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="m", timeout_s=30)
    service = make_service(storage, llm=llm)
    fake_llm.stream_text("子曰：学而时习之，不亦说乎？" * 20, chunk=2, chunk_delay=0.1)  # ~14 s in full
    out = io.StringIO()
    adapter = ConsoleAdapter(service, ConsoleIdentity("u1", "dm-u1"), out, interactive=True)
    await asyncio.wait_for(adapter.run(Typist(out, "什么是学", "再问一句", "/cancel").__aiter__()), timeout=8)
    screen = out.getvalue()
    assert "/cancel" in screen and "Stopped" in screen  # the busy notice names /cancel, then it stops
    rows = await storage.messages.recent("console:dm-u1", 10)
    # the reply's row is written when it starts (it survives a crash), so it precedes the busy line
    assert [(r.role, r.status) for r in rows] == [("user", "ok"), ("assistant", "cancelled"), ("user", "busy")]
    assert screen.rstrip().endswith("你>")  # ready for the next question
