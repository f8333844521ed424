"""The events `ChatService.handle` yields. Adapters render them; event names are public API."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class Citation:
    """A footnote: number n in the reply text refers to passage `id` (e.g. lunyu:3.22)."""

    n: int
    id: str
    ref: str  # human reference, e.g. 《论语·八佾》第22章
    text: str = ""


@dataclass(frozen=True)
class TextDelta:
    """More reply text; adapters append it to what they show."""

    text: str
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class TextReset:
    """Discard the text streamed so far (a regeneration follows)."""

    reason: str = ""
    kind: Literal["text_reset"] = "text_reset"


@dataclass(frozen=True)
class ToolStep:
    """The agent started or finished a tool call; adapters refresh "typing" on it."""

    name: str
    phase: Literal["start", "end"]
    ok: bool | None = None
    latency_ms: float | None = None
    kind: Literal["tool_step"] = "tool_step"


@dataclass(frozen=True)
class FinalReply:
    """The complete reply. `text` holds [n] markers that match `citations`.

    level: 0 agent with tools, 1 plain LLM, 2 retrieval-only answer.
    """

    text: str
    citations: tuple[Citation, ...] = ()
    level: int = 0
    trace_id: str = ""
    kind: Literal["final"] = "final"


NoticeReason = Literal[
    "bad_input",  # empty or too long: nothing to answer
    "injection",  # the input guard refused it
    "busy",  # the sender's previous reply is still running
    "rate_limited",  # a per-person, per-group or token limit; extra has "limit" and "retry_after_s"
    "no_llm",  # informational, before an answer: no language model configured, texts only
    "config_error",  # the LLM rejected our configuration (key, model): operators must act
    "error",  # an unexpected failure; the text carries the trace id
    "command",  # a command's result; extra carries structured data (choices, cancelled …)
    "unknown_command",  # a command nobody registered
]


@dataclass(frozen=True)
class Notice:
    """A short message that is not an answer: bad input, limits, busy, config problems, command results.

    reason: one of `NoticeReason`, a stable machine word adapters may branch on.
    """

    text: str
    reason: NoticeReason
    trace_id: str = ""
    extra: dict = field(default_factory=dict)
    kind: Literal["notice"] = "notice"


ReplyEvent = TextDelta | TextReset | ToolStep | FinalReply | Notice
