"""What the agent yields and keeps: streamed events, step traces, and the final result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from core.events import Citation, TextDelta, TextReset, ToolStep
from core.llm.errors import LLMUnavailable
from core.llm.types import Usage

StopReason = Literal["answer", "max_rounds", "timeout", "empty"]


class ReplyTimeout(LLMUnavailable):
    """The reply ran out of time and even the forced final answer did not arrive in time."""


@dataclass(frozen=True)
class AgentStep:
    """One tool call in the reply's trace.

    Attributes:
        round: the tool round (1-based) that made the call.
        tool: the tool name the model asked for (may be unknown).
        args: the parsed arguments (raw text under "_raw" when they were not valid JSON).
        ok: the tool ran and returned.
        latency_ms: time from start to observation.
        repeat: 0 for a fresh call, 1 for a repeat answered from the earlier result, 2+ refused.
        error: the error line when not ok.
        call_id: the model's tool_call_id.
    """

    round: int
    tool: str
    args: dict[str, Any]
    ok: bool
    latency_ms: float
    repeat: int = 0
    error: str | None = None
    call_id: str = ""


@dataclass(frozen=True)
class LLMRound:
    """One model call in the reply's trace (tokens and latency)."""

    round: int
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    tool_calls: int
    forced: bool = False


@dataclass(frozen=True)
class AgentResult:
    """The agent's last event: the finished reply and its trace.

    Attributes:
        text: the answer, citation markers already renumbered to match `citations`.
        citations: footnotes for the [n] markers in `text`.
        usage: tokens summed over every model call of this reply.
        rounds: tool rounds that ran.
        steps: every tool call, in order.
        llm_calls: every model call, in order.
        stop_reason: "answer" (the model finished), "max_rounds" or "timeout" (a limit forced the
            final answer), "empty" (the model said nothing, so a final answer was forced).
        canned: True when even the forced answer was empty and the fixed in-persona sentence was used.
    """

    text: str
    citations: tuple[Citation, ...]
    usage: Usage
    rounds: int
    steps: tuple[AgentStep, ...]
    llm_calls: tuple[LLMRound, ...] = ()
    stop_reason: StopReason = "answer"
    canned: bool = False
    kind: Literal["agent_result"] = field(default="agent_result")


AgentEvent = TextDelta | TextReset | ToolStep | AgentResult
