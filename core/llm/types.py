"""Provider-neutral LLM data: what a completion returns and what a stream yields."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

Message = dict[str, Any]  # OpenAI chat message dict: {"role": ..., "content": ..., ...}


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for; `arguments` is the raw JSON string the model wrote."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Completion:
    """A finished model answer: text and/or tool calls."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    model: str = ""
    finish_reason: str | None = None

    def as_message(self) -> Message:
        """The assistant message to append to the conversation for the next round."""
        msg: Message = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return msg


@dataclass(frozen=True)
class StreamDelta:
    """A piece of streamed answer text."""

    text: str
    kind: Literal["delta"] = "delta"


@dataclass(frozen=True)
class StreamDone:
    """The end of a stream, with everything reassembled (tool calls joined by index)."""

    completion: Completion
    kind: Literal["done"] = "done"


StreamEvent = StreamDelta | StreamDone


class LLM(Protocol):
    """The port every LLM implementation (client, breaker wrapper, test doubles) offers."""

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion: ...

    def stream(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> AsyncGenerator[StreamEvent, None]: ...
