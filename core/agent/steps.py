"""Running one round of tool calls: concurrency, repeats, unknown tools, observations, step logs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import structlog

from core.agent.types import AgentStep
from core.citations import CitationBook
from core.llm.types import Message, ToolCall
from core.tools.tool import ToolContext
from core.tools.toolset import Failure, ToolOutcome, Toolset

log = structlog.get_logger(__name__)

LOG_VALUE_CHARS = 80
REPEAT_NOTE = (
    "Note: you already called {tool} with exactly these arguments; this is the same result again. "
    "Use it instead of calling again."
)
REFUSED = ToolOutcome.failed(
    "refused",
    "refused: this exact call (same tool, same arguments) was already made twice",
    "Use the earlier results, call with different arguments, or answer now.",
)


@dataclass(frozen=True)
class StepOutput:
    """One tool call's observation (the `role: tool` message) and its trace record."""

    message: Message
    step: AgentStep


class StepRunner:
    """Executes the model's tool calls for one reply (the agent runs a round's calls concurrently).

    Remembers every call of the reply by (tool, canonical JSON arguments): the 2nd identical call
    gets the earlier result with a note, the 3rd and later are refused.

    Args:
        tools: the toolset.
        allowed: tool names the model may call (None = every tool in the set).
        ctx: handed to every tool.
        citations: numbers the passages in tool results.
        clock: monotonic clock for latencies.
        max_observation_chars: longer observations are cut (with a note) to protect the context.
    """

    def __init__(
        self,
        tools: Toolset,
        allowed: Iterable[str] | None,
        ctx: ToolContext,
        citations: CitationBook,
        clock: Callable[[], float],
        max_observation_chars: int = 8000,
    ):
        self._tools = tools
        wanted = None if allowed is None else set(allowed)
        self._allowed = [n for n in tools.names if wanted is None or n in wanted]
        self._ctx = ctx
        self._citations = citations
        self._clock = clock
        self._max_chars = max_observation_chars
        self._calls: dict[str, asyncio.Task[ToolOutcome]] = {}
        self._counts: dict[str, int] = {}

    @property
    def allowed(self) -> list[str]:
        return list(self._allowed)

    async def run_one(self, call: ToolCall, round_no: int, timeout_s: float) -> StepOutput:
        """Run one call (or answer it from an earlier identical call, or refuse it); never raises."""
        started = self._clock()
        args, parse_error = parse_arguments(call.arguments)
        repeat = 0
        if call.name not in self._allowed:
            valid = ", ".join(self._allowed) or "none (answer without tools)"
            outcome = ToolOutcome.failed("unknown_tool", f"unknown tool: {call.name}", f"Valid tools: {valid}.")
        elif parse_error:
            outcome = ToolOutcome.failed("bad_arguments", parse_error, "Call again with a JSON object of arguments.")
        else:
            key = call.name + " " + json.dumps(args, sort_keys=True, ensure_ascii=False)
            repeat = self._counts.get(key, 0)
            self._counts[key] = repeat + 1
            outcome = await self._shared(key, call.name, args, timeout_s) if repeat < 2 else REFUSED
        step = AgentStep(
            round=round_no,
            tool=call.name,
            args=args,
            ok=outcome.ok,
            latency_ms=round((self._clock() - started) * 1000, 1),
            repeat=repeat,
            error=outcome.error,
            call_id=call.id,
        )
        _log_step(step, outcome.failure)
        content = self._observation(call.name, outcome, repeat)
        return StepOutput({"role": "tool", "tool_call_id": call.id, "content": content}, step)

    async def _shared(self, key: str, name: str, args: dict, timeout_s: float) -> ToolOutcome:
        """Run the call once; an identical later call (even in the same round) awaits the same run."""
        if key not in self._calls:
            self._calls[key] = asyncio.ensure_future(self._tools.call(name, args, self._ctx, timeout_s=timeout_s))
        return await asyncio.shield(self._calls[key])

    def _observation(self, name: str, outcome: ToolOutcome, repeat: int) -> str:
        note = REPEAT_NOTE.format(tool=name) if repeat == 1 else None
        if not outcome.ok:
            body = outcome.error_observation()
            if note:
                body["note"] = note
            return json.dumps(body, ensure_ascii=False)
        text = _cut(self._citations.render(outcome.content), self._max_chars)
        return f"{text}\n\n({note})" if note else text

    def cancel_pending(self) -> None:
        """Cancel tool calls still running (the reply is being abandoned)."""
        for task in self._calls.values():
            task.cancel()


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + f"\n…(cut: {len(text) - limit} more characters not shown)"


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """The model's argument string as a dict, or ({"_raw": …}, error line)."""
    if not raw or not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {"_raw": raw[:LOG_VALUE_CHARS]}, f"arguments are not valid JSON ({exc.msg} at char {exc.pos})"
    if not isinstance(value, dict):
        return {"_raw": raw[:LOG_VALUE_CHARS]}, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None


def summarize_args(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments fit for a log line: scalars kept, long text cut to 80 characters."""
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, (int, float, bool)) or value is None:
            out[key] = value
        else:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            out[key] = text if len(text) <= LOG_VALUE_CHARS else text[:LOG_VALUE_CHARS] + "…"
    return out


def _log_step(step: AgentStep, failure: Failure | None) -> None:
    log.info(
        "agent_tool_step",
        tool=step.tool,
        round=step.round,
        ok=step.ok,
        latency_ms=step.latency_ms,
        repeat=step.repeat,
        failure=failure,
        args=summarize_args(step.args),
    )
