"""The tools an agent may call, by name, and one call of one of them.

`Toolset.call` never raises for a tool problem: an unknown name, bad arguments, a `ToolError`, a
crash or the time limit all come back as a `ToolOutcome` with ok=False, one error line and a hint
the model can act on. Each call has one time limit (`timeout_s`), nothing nested around it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import structlog

from core.tools.schema import ArgumentError
from core.tools.tool import Tool, ToolContext, ToolError, ToolOutput

log = structlog.get_logger(__name__)

Failure = Literal["unknown_tool", "bad_arguments", "failed", "timeout", "refused"]

HINTS: dict[Failure, str] = {
    "bad_arguments": "Fix the arguments to match the tool's input schema, then call it again.",
    "timeout": "The tool took too long. Try once with a narrower query, or answer from what you have.",
    "failed": "The tool failed. Try other arguments or another tool, or answer from what you have.",
}
_DEFAULT_HINT = "The tool is unavailable now; answer from what you already have."


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call's result as the agent sees it.

    Attributes:
        ok: the function ran and returned.
        content: what it returned (a dict or text); None when not ok.
        error: one line saying what went wrong (not ok only).
        hint: what the model could do next (not ok only).
        failure: which kind of failure (not ok only).
    """

    ok: bool
    content: ToolOutput | None = None
    error: str | None = None
    hint: str | None = None
    failure: Failure | None = None

    @classmethod
    def failed(cls, failure: Failure, error: str, hint: str | None = None) -> ToolOutcome:
        """A failed call; the hint defaults to the one for its kind."""
        return cls(ok=False, error=error, hint=hint or HINTS.get(failure, _DEFAULT_HINT), failure=failure)

    def error_observation(self) -> dict[str, Any]:
        """The structured observation for a failure: {"ok": false, "error": …, "hint": …}."""
        return {"ok": False, "error": self.error or "tool failed", "hint": self.hint or _DEFAULT_HINT}


class Toolset:
    """Tools by name, in the order added; a name already taken is refused with a warning.

    Args:
        tools: the tools, in the order the model sees them.
        timeout_s: the time limit of a call that does not set its own.
    """

    def __init__(self, tools: Iterable[Tool] = (), *, timeout_s: float = 15.0):
        self.timeout_s = timeout_s
        self._tools: dict[str, Tool] = {}
        self.extend(tools)

    def add(self, tool: Tool) -> bool:
        """Add `tool`; False (and a warning) when its name is taken, the first one staying."""
        if tool.name in self._tools:
            log.warning("tool_duplicate_refused", tool=tool.name)
            return False
        self._tools[tool.name] = tool
        return True

    def extend(self, tools: Iterable[Tool]) -> None:
        """Add each of `tools`."""
        for tool in tools:
            self.add(tool)

    @property
    def names(self) -> list[str]:
        """Every tool name, in the order added."""
        return list(self._tools)

    def tools(self, names_allowed: Iterable[str] | None = None) -> list[Tool]:
        """The tools, filtered to `names_allowed` when given (None: all)."""
        allowed = None if names_allowed is None else set(names_allowed)
        return [t for t in self._tools.values() if allowed is None or t.name in allowed]

    def to_openai_tools(self, names_allowed: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The tools in OpenAI's `tools` format."""
        return [t.openai() for t in self.tools(names_allowed)]

    async def call(self, name: str, arguments: Any, ctx: ToolContext, *, timeout_s: float | None = None) -> ToolOutcome:
        """Call tool `name` with `arguments` (the model's JSON object) within one time limit."""
        tool = self._tools.get(name)
        if tool is None:
            valid = ", ".join(self._tools) or "none"
            return ToolOutcome.failed("unknown_tool", f"unknown tool: {name}", f"Valid tools: {valid}.")
        limit = timeout_s or self.timeout_s
        started = time.perf_counter()
        try:
            async with asyncio.timeout(limit) as deadline:
                content = await tool.run(arguments, ctx)
        except ArgumentError as exc:
            return ToolOutcome.failed("bad_arguments", f"invalid arguments for {name}: {exc}")
        except ToolError as exc:
            return ToolOutcome.failed("failed", str(exc), exc.hint)
        except TimeoutError as exc:
            if deadline.expired():
                return ToolOutcome.failed("timeout", f"tool {name} timed out after {limit:g}s")
            return _crashed(name, exc, started)
        except Exception as exc:
            return _crashed(name, exc, started)
        return ToolOutcome(ok=True, content=content)


def _crashed(name: str, exc: Exception, started: float) -> ToolOutcome:
    """A bug or an outage inside the tool (called in its `except`): the details stay in the log, the
    model learns the exception's type."""
    ms = round((time.perf_counter() - started) * 1000, 1)
    log.exception("tool_failed", tool=name, latency_ms=ms)
    return ToolOutcome.failed("failed", f"tool {name} failed ({type(exc).__name__})")
