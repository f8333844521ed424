"""The `openai` SDK's side of the client: failures classified once, answers read from their JSON.

The SDK sends the request and raises its errors; the request body goes out as the dict it is and
answers come back as parsed JSON (``cast_to=object``), since the SDK's per-request transform of the
typed parameters and its per-chunk model construction were a large share of a message's CPU.

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


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _usage(value: Any) -> Usage | None:
    usage = _dict(value) if value is not None else None
    return Usage(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0) if usage is not None else None


def to_completion(response: dict[str, Any]) -> Completion:
    """A non-streamed ``chat.completion`` body (JSON) as a Completion; raises TransientFailure
    when it has no choices."""
    choices = response.get("choices") or ()
    if not choices:
        raise TransientFailure("completion without choices")
    choice = _dict(choices[0])
    message = _dict(choice.get("message"))
    calls = tuple(
        ToolCall(id=c.get("id") or "", name=function.get("name") or "", arguments=function.get("arguments") or "")
        for c in map(_dict, message.get("tool_calls") or ())
        if (function := c.get("function")) is not None and isinstance(function, dict)
    )
    return Completion(
        text=message.get("content") or "",
        tool_calls=calls,
        usage=_usage(response.get("usage")),
        model=response.get("model") or "",
        finish_reason=choice.get("finish_reason"),
    )


@dataclass
class StreamAssembly:
    """Accumulates stream chunks: text, tool calls joined by index, usage, finish reason.

    Chunks are the ``chat.completion.chunk`` JSON objects as sent (dicts): building the SDK's
    pydantic models for every few characters cost more than everything else done per chunk.
    """

    model: str = ""
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    usage: Usage | None = None
    finish_reason: str | None = None
    progressed: bool = False  # a text or tool-call piece arrived (the model is producing)

    def feed(self, chunk: dict[str, Any]) -> str:
        """Take one chunk; return its text (possibly empty)."""
        self.model = chunk.get("model") or self.model
        if chunk.get("usage") is not None:
            self.usage = _usage(chunk["usage"])
        choices = chunk.get("choices")
        if not choices:
            return ""
        choice = _dict(choices[0])
        self.finish_reason = choice.get("finish_reason") or self.finish_reason
        delta = _dict(choice.get("delta"))
        for call in delta.get("tool_calls") or ():
            self._feed_call(_dict(call))
            self.progressed = True
        piece = delta.get("content") or ""
        if piece:
            self.text.append(piece)
            self.progressed = True
        return piece

    def _feed_call(self, delta: dict[str, Any]) -> None:
        index = delta.get("index")
        call = self.calls.setdefault(
            index if index is not None else len(self.calls), {"id": "", "name": "", "arguments": []}
        )
        if delta.get("id"):
            call["id"] = delta["id"]
        function = delta.get("function")
        if isinstance(function, dict):
            if function.get("name"):
                call["name"] = function["name"]
            if function.get("arguments"):
                call["arguments"].append(function["arguments"])

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
