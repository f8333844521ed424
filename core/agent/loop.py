"""The ReAct loop: the model decides whether and which tools to call, within hard limits.

Each round streams a completion with the allowed tools. Text with no tool calls is the answer
(already streamed). Tool calls run concurrently, their observations go back as `role: tool`
messages, and the next round begins. When a limit is reached (rounds, reply time) or the model
says nothing, one last completion without tools forces an answer from what was gathered; if even
that is empty, a fixed in-persona sentence is the reply. LLM errors propagate to the caller.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncGenerator, Callable, Iterable
from dataclasses import dataclass, field

import structlog

from core.agent.pump import StreamPump
from core.agent.steps import StepRunner
from core.agent.types import AgentEvent, AgentResult, AgentStep, LLMRound, ReplyTimeout, StopReason
from core.citations import CitationBook, CitationStream
from core.events import TextDelta, TextReset, ToolStep
from core.language import Language
from core.language.text import reply_language
from core.llm.budget import current_budget
from core.llm.types import LLM, Completion, Message, StreamDelta, StreamDone, ToolCall, Usage
from core.texts import say
from core.tools.tool import ToolContext
from core.tools.toolset import Toolset

log = structlog.get_logger(__name__)

FORCE_ANSWER_NOTE = (
    "The tools are no longer available for this reply. Answer the user now, from what the tools "
    "returned above and what you know, citing passages by their [n] numbers where you rely on them."
)
STANDALONE_REPLY_S = 120.0  # an agent run outside a reply (no reply budget) gets this long
_TAG = re.compile(r"</?[a-z_]+(?: [^>]*)?>")  # the labels of user data blocks (core/memory/blocks.py)


@dataclass
class _Reply:
    """Mutable state of one reply."""

    messages: list[Message]
    citations: CitationBook
    runner: StepRunner
    deadline: float  # tool rounds must end by then: the rest of the reply time is for the answer
    hard_deadline: float  # the whole reply's time limit
    language: Language | None = None  # the reply's language (None: from the last user message)
    usage: list[Usage] = field(default_factory=list)
    steps: list[AgentStep] = field(default_factory=list)
    llm_calls: list[LLMRound] = field(default_factory=list)
    rounds: int = 0


@dataclass
class _Round:
    """What one streamed completion produced."""

    cleaner: CitationStream
    shown: list[str] = field(default_factory=list)
    completion: Completion | None = None
    timed_out: bool = False

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return self.completion.tool_calls if self.completion else ()


class Agent:
    """A ReAct agent over an LLM port and a toolset.

    Args:
        llm: any `LLM` (the client, usually behind the circuit breaker).
        tools: the toolset; `run` filters its tools by `allowed_tools`.
        max_rounds: tool rounds per reply before the answer is forced.
        reply_timeout_s: wall time per reply, the forced answer included; None (the engine's way):
            whatever the reply's budget (core/llm/budget.py, one clock per reply) has left, or
            `STANDALONE_REPLY_S` outside a reply.
        tool_timeout_s: the time limit of one tool call (shortened to what the round has left).
        final_answer_timeout_s: the part of the reply time kept for the forced, tools-free answer
            (at most a quarter of the reply's time); tool rounds stop early enough to leave it.
        max_observation_chars: a tool result longer than this is cut before the model sees it.
        clock: monotonic clock (seconds) for deadlines and latencies.
    """

    def __init__(
        self,
        llm: LLM,
        tools: Toolset,
        *,
        max_rounds: int = 5,
        reply_timeout_s: float | None = None,
        tool_timeout_s: float = 15.0,
        final_answer_timeout_s: float = 30.0,
        max_observation_chars: int = 8000,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.llm = llm
        self.tools = tools
        self.max_rounds = max_rounds
        self.reply_timeout_s = reply_timeout_s
        self.tool_timeout_s = tool_timeout_s
        self.final_answer_timeout_s = final_answer_timeout_s
        self.max_observation_chars = max_observation_chars
        self._clock = clock

    def _time_s(self) -> float:
        """This reply's time: the reply budget's (the one clock of a reply), capped by reply_timeout_s."""
        budget = current_budget()
        left = budget.left() if budget is not None else None
        own = self.reply_timeout_s
        if left is None:
            return own if own is not None else STANDALONE_REPLY_S
        return max(0.0, left if own is None else min(own, left))

    async def run(
        self,
        messages: list[Message],
        *,
        allowed_tools: Iterable[str] | None,
        ctx: ToolContext,
        citations: CitationBook,
        language: Language | None = None,
    ) -> AsyncGenerator[AgentEvent, None]:
        """Yield text deltas, resets and tool steps as they happen, then one AgentResult.

        `language` is the reply's (`core.language.text.reply_language` of the question); without it, the same
        rule is applied to the last user message.

        Raises:
            LLMError: from the LLM (the caller runs the fallback ladder); ReplyTimeout when even
                the forced answer did not come in time.
        """
        runner = StepRunner(self.tools, allowed_tools, ctx, citations, self._clock, self.max_observation_chars)
        time_s = self._time_s()
        hard_deadline = self._clock() + time_s
        reserve_s = min(self.final_answer_timeout_s, time_s / 4)
        reply = _Reply(list(messages), citations, runner, hard_deadline - reserve_s, hard_deadline, language)
        tools = self.tools.to_openai_tools(runner.allowed) or None
        try:
            async for event in self._loop(reply, tools):
                yield event
        finally:
            runner.cancel_pending()

    async def _loop(self, reply: _Reply, tools: list[dict] | None) -> AsyncGenerator[AgentEvent, None]:
        stop: StopReason = "max_rounds"
        while reply.rounds < self.max_rounds:
            current = _Round(reply.citations.stream())
            async for event in self._stream(reply, current, tools, reply.deadline - self._clock(), False):
                yield event
            if current.tool_calls and not current.timed_out:
                if current.shown:
                    yield TextReset("tool_call")  # the text was a preamble to tool calls, not the answer
                async for event in self._tool_round(reply, current):
                    yield event
                if reply.deadline <= self._clock():
                    stop = "timeout"
                    break
                continue
            if _answer_text(current) and not current.timed_out:
                for event in self._finish(reply, current, "answer"):
                    yield event
                return
            stop = "timeout" if current.timed_out else "empty"
            if current.shown:
                yield TextReset(stop)
            break
        async for event in self._forced_answer(reply, stop):
            yield event

    async def _stream(
        self, reply: _Reply, current: _Round, tools: list[dict] | None, budget_s: float, forced: bool
    ) -> AsyncGenerator[AgentEvent, None]:
        """One streamed completion; text goes out through the citation filter as it arrives."""
        started = self._clock()
        pump = StreamPump(self.llm.stream(reply.messages, tools=tools))
        try:
            while (event := await pump.next(budget_s - (self._clock() - started))) is not None:
                if isinstance(event, StreamDelta) and (shown := current.cleaner.feed(event.text)):
                    current.shown.append(shown)
                    yield TextDelta(shown)
                elif isinstance(event, StreamDone):
                    current.completion = event.completion
                    break  # the last event of a stream
        except TimeoutError:
            current.timed_out = True
        finally:
            await pump.close()
        self._record_call(reply, current, started, forced)

    def _record_call(self, reply: _Reply, current: _Round, started: float, forced: bool) -> None:
        usage = (current.completion.usage if current.completion else None) or Usage()
        reply.usage.append(usage)
        call = LLMRound(
            round=reply.rounds + 1,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            latency_ms=round((self._clock() - started) * 1000, 1),
            tool_calls=len(current.tool_calls),
            forced=forced,
        )
        reply.llm_calls.append(call)
        log.info(
            "agent_round",
            round=call.round,
            forced=forced,
            tool_calls=call.tool_calls,
            prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens,
            latency_ms=call.latency_ms,
            timed_out=current.timed_out,
        )

    async def _tool_round(self, reply: _Reply, current: _Round) -> AsyncGenerator[AgentEvent, None]:
        """Run the round's calls concurrently; report each end as it happens, append results in call order."""
        reply.rounds += 1
        calls = _with_ids(current.tool_calls, reply.rounds)
        said = current.completion.text if current.completion else ""  # tool calls come with a completion
        reply.messages.append(_assistant_message(said, calls))
        budget = max(0.001, min(self.tool_timeout_s, reply.deadline - self._clock()))
        tasks = [asyncio.ensure_future(reply.runner.run_one(c, reply.rounds, budget)) for c in calls]
        try:
            for call in calls:
                yield ToolStep(name=call.name, phase="start")
            for finished in asyncio.as_completed(tasks):
                step = (await finished).step
                yield ToolStep(name=step.tool, phase="end", ok=step.ok, latency_ms=step.latency_ms)
        finally:
            for task in tasks:
                task.cancel()
        for task in tasks:
            reply.messages.append(task.result().message)
            reply.steps.append(task.result().step)

    async def _forced_answer(self, reply: _Reply, stop: StopReason) -> AsyncGenerator[AgentEvent, None]:
        """The last completion, tools removed, so the reply is an answer from what was gathered."""
        log.info("agent_force_answer", reason=stop, rounds=reply.rounds)
        reply.messages.append({"role": "system", "content": FORCE_ANSWER_NOTE})
        current = _Round(reply.citations.stream())
        budget = max(reply.hard_deadline - reply.deadline, reply.hard_deadline - self._clock())
        async for event in self._stream(reply, current, None, budget, True):
            yield event
        if current.timed_out:
            raise ReplyTimeout(f"no forced answer within {budget:.1f}s after the {stop} limit")
        if not _answer_text(current):
            if current.shown:
                yield TextReset("empty")
            canned = say("AGENT_NO_WORDS", reply.language or _language(reply.messages))
            yield TextDelta(canned)
            yield self._result(reply, canned, (), stop, canned=True)
            return
        for event in self._finish(reply, current, stop):
            yield event

    def _finish(self, reply: _Reply, current: _Round, stop: StopReason) -> list[AgentEvent]:
        """The held-back end of the text (if any), then the result."""
        tail = current.cleaner.flush()
        if tail:
            current.shown.append(tail)
        result = self._result(reply, "".join(current.shown), current.cleaner.citations(), stop)
        return [TextDelta(tail), result] if tail else [result]

    def _result(
        self, reply: _Reply, text: str, citations: tuple, stop: StopReason, *, canned: bool = False
    ) -> AgentResult:
        total = Usage(sum(u.prompt_tokens for u in reply.usage), sum(u.completion_tokens for u in reply.usage))
        log.info(
            "agent_done",
            stop_reason=stop,
            rounds=reply.rounds,
            steps=len(reply.steps),
            prompt_tokens=total.prompt_tokens,
            completion_tokens=total.completion_tokens,
            canned=canned,
        )
        return AgentResult(
            text=text,
            citations=tuple(citations),
            usage=total,
            rounds=reply.rounds,
            steps=tuple(reply.steps),
            llm_calls=tuple(reply.llm_calls),
            stop_reason=stop,
            canned=canned,
        )


def _answer_text(current: _Round) -> str:
    return current.completion.text.strip() if current.completion else ""


def _with_ids(calls: tuple[ToolCall, ...], round_no: int) -> list[ToolCall]:
    """Calls with a distinct tool_call_id each (some providers omit or repeat them)."""
    seen: set[str] = set()
    out = []
    for i, call in enumerate(calls):
        call_id = call.id if call.id and call.id not in seen else f"call_r{round_no}_{i}"
        seen.add(call_id)
        out.append(call if call_id == call.id else ToolCall(call_id, call.name, call.arguments))
    return out


def _assistant_message(text: str, calls: list[ToolCall]) -> Message:
    return {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
            for c in calls
        ],
    }


def _language(messages: list[Message]) -> Language:
    """`reply_language` of the user's last message (its data-block tags removed)."""
    for msg in reversed(messages):
        if msg.get("role") == "user":
            content = msg.get("content")
            text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
            return reply_language(_TAG.sub(" ", text))
    return "zh"
