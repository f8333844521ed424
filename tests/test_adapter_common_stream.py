"""StreamingReply and OutboundBudget against a recording sink, on virtual time."""

from __future__ import annotations

import asyncio

import pytest

from adapters.common.render import truncate
from adapters.common.split import split_text
from adapters.common.stream import BudgetRegistry, OutboundBudget, RateLimited, StreamingReply
from core.events import Citation, FinalReply, Notice, TextDelta, TextReset, ToolStep
from tests.fakes.engine import ScriptedEngine
from tests.helpers_telegram import FakeTime

LIMIT = 100


class RecordingSink:
    """Records (time, op, text) and can refuse chosen calls with RateLimited."""

    def __init__(self, time: FakeTime, latency: float = 0.05) -> None:
        self.time, self.latency = time, latency
        self.calls: list[tuple[float, str, str, bool]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.refuse: dict[int, float] = {}  # call index -> retry_after
        self._next_id = 0

    async def _call(self, op: str, text: str, final: bool) -> None:
        index = len(self.calls)
        self.calls.append((self.time.now, op, text, final))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await self.time.sleep(self.latency)
            if index in self.refuse:
                raise RateLimited(self.refuse[index])
        finally:
            self.in_flight -= 1

    async def typing(self) -> None:
        await self._call("typing", "", False)

    async def send(self, text, *, final=False, extra=None):
        await self._call("send", text, final)
        self._next_id += 1
        return self._next_id

    async def edit(self, handle, text, *, final=False, extra=None):
        await self._call("edit", text, final)
        return handle

    def fit_preview(self, text: str) -> str:
        return truncate(text, LIMIT)

    def split_final(self, text: str) -> list[str]:
        return split_text(text, LIMIT)

    def ops(self) -> list[str]:
        return [op for _, op, _, _ in self.calls]

    def finals(self) -> list[str]:
        return [text for _, _, text, final in self.calls if final]


def script(engine_time: FakeTime, *steps):
    engine = ScriptedEngine(sleep=engine_time.sleep)
    engine.queue(*steps)
    from core.types import Incoming

    return engine.handle(Incoming("test", "u1", "c1", "hi"))


async def run_reply(time: FakeTime, sink, events, interval=1.0, budget=None):
    budget = budget or OutboundBudget(interval, clock=time.clock, sleep=time.sleep)
    reply = StreamingReply(sink, budget, trace_id="t1", clock=time.clock, sleep=time.sleep)
    return await time.run(reply.run(events)), budget


def deltas(text: str, every: float, size: int = 5):
    steps = []
    for i in range(0, len(text), size):
        steps += [every, TextDelta(text[i : i + size])]
    return steps


async def test_typing_placeholder_edits_then_final_with_footnotes():
    time = FakeTime()
    sink = RecordingSink(time)
    body = "子曰：学而时习之，不亦说乎？有朋自远方来，不亦乐乎？[1]"
    final = FinalReply(body, (Citation(1, "lunyu:1.1", "《论语·学而》第1章"),))
    stats, _ = await run_reply(time, sink, script(time, 2.0, *deltas(body, 0.4), final))
    ops = sink.ops()
    assert ops[0] == "typing" and ops[1] == "send"
    assert sink.calls[1][2] == "…"  # placeholder before any text
    assert ops.count("edit") >= 3
    assert sink.finals() == [body + "\n\n[1] 《论语·学而》第1章"]
    assert sink.calls[-1][1] == "edit"  # the final replaces the streamed message
    assert stats.outcome == "final"


async def test_requests_respect_interval_and_one_in_flight():
    time = FakeTime()
    sink = RecordingSink(time, latency=0.3)
    text = "一二三四五六七八九十" * 8
    await run_reply(time, sink, script(time, *deltas(text, 0.05, 2), FinalReply(text)), interval=1.0)
    starts = [t for t, *_ in sink.calls]
    assert all(b - a >= 1.0 - 1e-9 for a, b in zip(starts, starts[1:]))
    assert sink.max_in_flight == 1
    previews = [text_ for _, op, text_, final in sink.calls if op != "typing" and not final]
    assert all(text.startswith(p) for p in previews)  # every preview is a prefix: newest text, in order
    assert sink.finals() == [text]


async def test_rate_limit_pauses_chat_and_final_still_arrives():
    time = FakeTime()
    sink = RecordingSink(time)
    sink.refuse = {2: 7.0}  # the first edit after the placeholder send
    text = "长" * 60
    stats, budget = await run_reply(time, sink, script(time, 0.5, *deltas(text, 0.2, 3), FinalReply(text)))
    refused_at = sink.calls[2][0]
    later = [t for t, *_ in sink.calls[3:]]
    assert later and all(t >= refused_at + 0.05 + 7.0 - 1e-9 for t in later)
    assert sink.finals() == [text]
    assert stats.rate_limited == 1


async def test_final_is_retried_after_rate_limit():
    time = FakeTime()
    sink = RecordingSink(time)
    sink.refuse = {0: 3.0}
    stats, _ = await run_reply(time, sink, script(time, FinalReply("好")))
    assert [op for op in sink.ops()] == ["send", "send"]
    assert sink.calls[1][0] >= sink.calls[0][0] + 3.0
    assert sink.finals() == ["好", "好"] and stats.sends == 1 and stats.rate_limited == 1


async def test_instant_notice_skips_typing():
    time = FakeTime()
    sink = RecordingSink(time)
    await run_reply(time, sink, script(time, Notice("帮助文本", reason="command")))
    assert sink.ops() == ["send"] and sink.finals() == ["帮助文本"]


async def test_reset_discards_streamed_text():
    time = FakeTime()
    sink = RecordingSink(time)
    events = script(
        time, TextDelta("错误的回答"), 1.5, TextReset("regenerate"), 1.5, TextDelta("正确"), 1.5, FinalReply("正确")
    )
    await run_reply(time, sink, events)
    previews = [text for _, op, text, final in sink.calls if op != "typing" and not final]
    assert "错误的回答" in previews and "…" in previews[previews.index("错误的回答") :]
    assert sink.finals() == ["正确"]


async def test_tool_step_refreshes_typing_while_thinking():
    time = FakeTime()
    sink = RecordingSink(time)
    events = script(
        time, ToolStep("search", "start"), 12.0, ToolStep("search", "end"), TextDelta("答"), 0.1, FinalReply("答")
    )
    await run_reply(time, sink, events)
    assert sink.ops().count("typing") >= 3


async def test_stream_ending_early_is_finished_cleanly():
    time = FakeTime()
    sink = RecordingSink(time)
    stats, _ = await run_reply(time, sink, script(time, TextDelta("半句"), 2.0))
    assert sink.finals() == ["半句（已停止）"]


async def test_engine_error_gives_apology_with_trace():
    time = FakeTime()
    sink = RecordingSink(time)

    async def broken():
        yield TextDelta("开头")
        await time.sleep(1.5)
        raise RuntimeError("secret detail")

    stats, _ = await run_reply(time, sink, broken())
    assert stats.outcome == "error"
    assert "t1" in sink.finals()[0] and "secret" not in sink.finals()[0]
    assert sink.finals()[0].startswith("开头")


async def test_long_final_is_split_in_order():
    time = FakeTime()
    sink = RecordingSink(time)
    text = "\n\n".join(f"第{i}段。" + "文" * 40 for i in range(12))
    await run_reply(time, sink, script(time, TextDelta(text[:50]), 1.5, FinalReply(text)))
    parts = sink.finals()
    assert len(parts) > 3 and all(len(p) <= LIMIT for p in parts)
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")
    assert sink.calls[-len(parts)][1] == "edit" and all(op == "send" for _, op, _, f in sink.calls[-len(parts) + 1 :])


async def test_events_after_final_are_drained():
    time = FakeTime()
    sink = RecordingSink(time)
    done = []

    async def engine():
        yield FinalReply("好")
        await time.sleep(0.5)
        done.append(True)

    await run_reply(time, sink, engine())
    assert done == [True]


def test_budget_shared_and_paused():
    time = FakeTime()
    budget = BudgetRegistry(clock=time.clock, sleep=time.sleep).get("tg:1", 3.0)
    assert budget.try_acquire() and not budget.try_acquire()
    time.now += 3.0
    budget.pause_for(10)
    assert budget.paused and not budget.try_acquire() and budget.delay() == pytest.approx(10)
    time.now += 10
    assert budget.try_acquire()


async def test_outer_cancel_propagates():
    time = FakeTime()
    sink = RecordingSink(time)
    reply = StreamingReply(
        sink, OutboundBudget(1.0, clock=time.clock, sleep=time.sleep), clock=time.clock, sleep=time.sleep
    )
    task = asyncio.ensure_future(reply.run(script(time, TextDelta("a"), 100.0, FinalReply("a"))))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_queued_preview_is_withdrawn_when_final_is_ready():
    from adapters.common.stream import Withdrawn

    time = FakeTime()

    class QueueingSink(RecordingSink):
        """Edits wait in a local queue that only withdraw() ends (a congested global limiter)."""

        def __init__(self, time):
            super().__init__(time)
            self.queued: asyncio.Future | None = None

        async def edit(self, handle, text, *, final=False, extra=None):
            if final:
                return await super().edit(handle, text, final=True)
            self.queued = asyncio.get_running_loop().create_future()
            await self.queued
            return await super().edit(handle, text)

        def withdraw(self):
            if self.queued and not self.queued.done():
                self.queued.set_exception(Withdrawn())

    sink = QueueingSink(time)
    events = script(time, TextDelta("学"), 1.2, TextDelta("而"), 0.5, FinalReply("学而"))
    stats, budget = await run_reply(time, sink, events, interval=1.0)
    assert sink.finals() == ["学而"]
    final_at = next(t for t, _, _, final in sink.calls if final)
    next(t for t, op, _, _ in sink.calls if op == "send")
    assert final_at == pytest.approx(1001.7)  # sent the moment the final was ready
    assert [op for _, op, _, final in sink.calls if not final] == ["send"]  # the queued edit never went out


async def test_notice_followed_by_answer_stays_on_top():
    time = FakeTime()
    sink = RecordingSink(time)
    events = script(
        time, Notice("今日只凭典籍作答。", reason="no_llm"), 0.5, TextDelta("子曰"), 1.5, FinalReply("子曰：仁者爱人。")
    )
    stats, _ = await run_reply(time, sink, events)
    assert sink.finals() == ["今日只凭典籍作答。\n\n子曰：仁者爱人。"] and stats.outcome == "final"


async def test_error_after_reset_shows_only_the_notice():
    time = FakeTime()
    sink = RecordingSink(time)
    events = script(time, TextDelta("半截"), 1.5, TextReset("error"), Notice("夫子一时语塞 (trace t1)", reason="error"))
    stats, _ = await run_reply(time, sink, events)
    assert sink.finals() == ["夫子一时语塞 (trace t1)"] and stats.outcome == "notice"


async def test_final_goes_before_other_replies_previews_in_the_same_chat():
    time = FakeTime()
    budget = OutboundBudget(3.0, clock=time.clock, sleep=time.sleep)
    sink_a, sink_b = RecordingSink(time), RecordingSink(time)
    b_events = script(time, *deltas("乙" * 200, 0.2, 2), FinalReply("乙" * 200))
    a_events = script(time, 4.0, FinalReply("甲：简短的回答"))  # a command-like answer in the same group
    reply_b = StreamingReply(sink_b, budget, clock=time.clock, sleep=time.sleep)
    reply_a = StreamingReply(sink_a, budget, first_typing_after=60, clock=time.clock, sleep=time.sleep)

    async def both():
        return await asyncio.gather(reply_b.run(b_events), reply_a.run(a_events))

    await time.run(both())
    (final_a,) = [t for t, _, _, final in sink_a.calls if final]
    b_starts = [t for t, *_ in sink_b.calls]
    slot_after_ready = min(t for t in b_starts if t >= 1004.0)  # the first slot B could have had
    assert final_a <= slot_after_ready  # A's final took that slot; B's preview waited
    starts = sorted(t for t, *_ in sink_a.calls + sink_b.calls)
    assert all(b - a >= 3.0 - 1e-9 for a, b in zip(starts, starts[1:]))  # one budget for both
    assert "".join(sink_b.finals()) == "乙" * 200
