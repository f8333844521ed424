"""The `openai` SDK's side of the client: failures classified once, stream chunks assembled.

:func:`map_error` is the single place that decides what is transient (retried, then
``LLMUnavailable``) and what is a configuration error (``LLMConfigError``, never retried).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai

from core.llm.errors import LLMConfigError, LLMError
from core.llm.retry import TransientFailure, parse_retry_after
from core.llm.types import Completion, ToolCall, Usage

CONFIG_STATUSES = frozenset({400, 401, 403, 404, 422})
"""HTTP statuses that mean "fix the settings": never retried, never degraded."""

TRANSIENT_4XX = frozenset({408, 409, 429})


def map_error(exc: BaseException) -> BaseException:
    """Classify an SDK or transport exception: TransientFailure, LLMConfigError, or ``exc`` unchanged.

    Messages carry the status and the provider's error type/code only, never the response body
    (providers echo parts of the API key in 401 messages).
    """
    if isinstance(exc, LLMError | TransientFailure):
        return exc
    if isinstance(exc, openai.APIStatusError):
        return _map_status(exc)
    if isinstance(exc, openai.APITimeoutError | httpx2.TimeoutException):
        return TransientFailure("timeout", timeout=True)
    if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
        return TransientFailure(f"connection error ({type(exc).__name__})")
    if isinstance(exc, openai.APIError):  # e.g. an error event inside an SSE stream, a malformed body
        return TransientFailure(f"API error ({type(exc).__name__})")
    return exc


def _map_status(exc: openai.APIStatusError) -> BaseException:
    status = exc.status_code
    code = _error_field(exc, "code") or _error_field(exc, "type")
    label = f"HTTP {status}" + (f" ({code})" if code else "")
    if status == 429 and code == "insufficient_quota":
        return LLMConfigError(f"LLM quota exhausted: {label}", status=status)
    if status in TRANSIENT_4XX or status >= 500:
        return TransientFailure(label, status=status, retry_after=parse_retry_after(exc.response.headers))
    return LLMConfigError(f"LLM endpoint refused the request: {label}", status=status)


def _error_field(exc: openai.APIStatusError, name: str) -> str | None:
    body = exc.body if isinstance(exc.body, dict) else {}
    inner = body.get("error", body)
    value = inner.get(name) if isinstance(inner, dict) else None
    return str(value) if isinstance(value, str | int) else None


@dataclass
class StreamAssembly:
    """Accumulates stream chunks: text, tool calls joined by index, usage, finish reason."""

    model: str = ""
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    usage: Usage | None = None
    finish_reason: str | None = None
    progressed: bool = False  # a text or tool-call piece arrived (the model is producing)

    def feed(self, chunk: Any) -> str:
        """Take one ``ChatCompletionChunk``; return its text (possibly empty)."""
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.usage = Usage(chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0)
        if not chunk.choices:
            return ""
        choice = chunk.choices[0]
        self.finish_reason = choice.finish_reason or self.finish_reason
        for delta in choice.delta.tool_calls or ():
            self._feed_call(delta)
            self.progressed = True
        piece = choice.delta.content or ""
        if piece:
            self.text.append(piece)
            self.progressed = True
        return piece

    def _feed_call(self, delta: Any) -> None:
        index = delta.index if delta.index is not None else len(self.calls)
        call = self.calls.setdefault(index, {"id": "", "name": "", "arguments": []})
        if delta.id:
            call["id"] = delta.id
        if delta.function is not None:
            if delta.function.name:
                call["name"] = delta.function.name
            if delta.function.arguments:
                call["arguments"].append(delta.function.arguments)

    def completion(self) -> Completion:
        """Everything received so far as one Completion (tool calls ordered by index)."""
        calls = tuple(
            ToolCall(id=c["id"], name=c["name"], arguments="".join(c["arguments"]))
            for _, c in sorted(self.calls.items())
        )
        return Completion(
            text="".join(self.text),
            tool_calls=calls,
            usage=self.usage,
            model=self.model,
            finish_reason=self.finish_reason,
        )
