"""The LLM client over the `openai` SDK: completions, tool calls, streaming, one retry policy.

The SDK's own retries are off (``max_retries=0``); :class:`~core.llm.retry.Retrier` is the only retry
loop. Every SDK failure is classified by :func:`core.llm.sdk.map_error`, the single place that decides what is
transient (retried, then ``LLMUnavailable``) and what is a configuration error (``LLMConfigError``,
never retried). A stream is retried only until its first text token reached the caller.

Three waits are bounded separately, so a slow start is not mistaken for an outage nor a stall for a
slow start: connecting (``connect_timeout_s``), the first token of a stream
(``first_token_timeout_s``) and the gap between two chunks once tokens flow
(``stream_idle_timeout_s``). Inside a reply every wait is also capped by the reply's
:class:`~core.llm.budget.ReplyBudget`, and no call or retry starts that the budget has no room for.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx2
import openai
import structlog
from openai import AsyncStream, RequestOptions

from core.llm.budget import ReplyBudget, capped, current_budget
from core.llm.choice import chat_model
from core.llm.errors import LLMConfigError, LLMNotConfigured, LLMTimeout, LLMUnavailable
from core.llm.retry import CallStats, Retrier, RetryPolicy, TransientFailure
from core.llm.sdk import StreamAssembly, map_error, to_completion
from core.llm.types import Completion, Message, StreamDelta, StreamDone, StreamEvent, Usage

log = structlog.get_logger(__name__)

PATH = "/chat/completions"
OPTIONS: RequestOptions = {"security": {"bearer_auth": True}}  # what the SDK's chat.completions.create sends

# The longest silence between two chunks once tokens flow, in a reply (was FUZI_LLM_STREAM_IDLE_TIMEOUT_S).
STREAM_IDLE_TIMEOUT_S = 10.0


@dataclass
class _PrimedStream:
    """An open SDK stream read up to its first text token (or to its end)."""

    sdk_stream: Any
    assembly: StreamAssembly
    first_text: str
    finished: bool


class OpenAIChatClient:
    """The :class:`~core.llm.types.LLM` port over ``openai.AsyncOpenAI``.

    Args:
        base_url: an OpenAI-compatible endpoint (e.g. ``https://api.deepseek.com``).
        api_key: the key; empty or None raises :class:`LLMNotConfigured`.
        model: model name sent with every request (inside a reply, the chat's `chat_model` instead).
        timeout_s: per-request timeout of a non-streamed completion; the default of the two below.
        connect_timeout_s: how long opening a connection may take.
        first_token_timeout_s: how long a stream may take to send its first token (text or tool
            call); None: ``timeout_s``.
        stream_idle_timeout_s: the longest silence between two chunks once tokens flow; None:
            ``timeout_s``.
        retry: the retry policy (attempts, backoff, jitter, retry-after cap).
        sleep: awaited for every retry wait; tests inject a recorder.
        clock: monotonic clock for latency figures.
        rng: jitter source.
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        model: str,
        timeout_s: float = 30.0,
        connect_timeout_s: float = 5.0,
        first_token_timeout_s: float | None = None,
        stream_idle_timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ):
        if not api_key:
            raise LLMNotConfigured("no LLM API key configured (FUZI_LLM_API_KEY)")
        self.model = model
        self._first_token_s = first_token_timeout_s or timeout_s
        self._idle_s = stream_idle_timeout_s or timeout_s
        read_s = max(timeout_s, self._first_token_s, self._idle_s)  # our own timers decide first
        timeout = httpx2.Timeout(read_s, connect=min(connect_timeout_s, read_s))
        self._sdk = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout)
        self._retrier = Retrier(retry or RetryPolicy(), sleep=sleep, rng=rng)
        self._timeout_s = timeout_s
        self._clock = clock

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._sdk.close()

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """One completion (text and/or tool calls), retried per the policy.

        Raises:
            LLMUnavailable: transient failures outlasted the policy.
            LLMConfigError: the endpoint refused the request (400/401/403/404/422).
        """
        request = self._request(messages, tools, temperature, max_tokens, stream=False)
        call = _CallLog(request["model"], "complete", len(tools or ()), self._clock)
        try:
            _check_room(current_budget())
            result = await self._retrier.run(lambda: self._complete_once(request), call.stats)
        except BaseException as exc:
            call.finish(exc)
            raise
        call.finish(None, result.usage)
        return result

    async def stream(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        """Stream text deltas, then one StreamDone with the reassembled completion.

        Failures before the first text token are retried like :meth:`complete`; after it, a failure
        raises ``LLMUnavailable`` at once (a retry would repeat text the caller already has).
        """
        request = self._request(messages, tools, temperature, max_tokens, stream=True)
        call = _CallLog(request["model"], "stream", len(tools or ()), self._clock)
        primed: _PrimedStream | None = None
        try:
            _check_room(current_budget())
            primed = await self._retrier.run(lambda: self._open_stream(request), call.stats)
            if primed.first_text:
                yield StreamDelta(primed.first_text)
            if not primed.finished:
                async for piece in self._rest(primed):
                    yield StreamDelta(piece)
            done = primed.assembly.completion()
        except BaseException as exc:
            call.finish(exc)
            raise
        finally:
            if primed is not None:
                await _close(primed.sdk_stream)
        call.finish(None, done.usage)
        yield StreamDone(done)

    # ------------------------------------------------------------------ attempts
    def _request(
        self,
        messages: list[Message],
        tools: list[dict] | None,
        temperature: float | None,
        max_tokens: int | None,
        *,
        stream: bool,
    ) -> dict[str, Any]:
        model = chat_model.get() or self.model  # the chat's own model inside its reply (core/llm/choice.py)
        request: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            request["tools"] = tools
        if temperature is not None:
            request["temperature"] = temperature
        if max_tokens is not None:
            request["max_tokens"] = max_tokens
        if stream:
            request["stream"] = True
            request["stream_options"] = {"include_usage": True}
        return request

    async def _complete_once(self, request: dict[str, Any]) -> Completion:
        timer = asyncio.timeout(capped(self._timeout_s))
        try:
            async with timer:
                response = await self._sdk.post(PATH, body=request, options=OPTIONS, cast_to=object)
        except TimeoutError as exc:
            if timer.expired():
                raise TransientFailure(
                    f"no answer within {self._timeout_s:.0f}s or the reply deadline", timeout=True
                ) from exc
            raise map_error(exc) from exc
        except Exception as exc:
            raise map_error(exc) from exc
        if not isinstance(response, dict):
            raise TransientFailure("completion that is not a JSON object")
        return to_completion(response)

    async def _open_stream(self, request: dict[str, Any]) -> _PrimedStream:
        """One attempt: open the stream and read until the first text token or the end.

        Until the first token (text or tool call) the wait is bounded by ``first_token_timeout_s``,
        after it each chunk by ``stream_idle_timeout_s``; both capped by the reply's budget.
        """
        sdk_stream = None
        budget = current_budget()
        started = self._clock()
        try:
            async with _bounded(capped(self._first_token_s, budget), "no first token"):
                sdk_stream = await self._sdk.post(
                    PATH, body=request, options=OPTIONS, cast_to=object, stream=True, stream_cls=AsyncStream[object]
                )
            assembly = StreamAssembly()
            while True:
                waited = self._clock() - started
                limit = self._idle_s if assembly.progressed else max(0.0, self._first_token_s - waited)
                what = "stream stalled" if assembly.progressed else "no first token"
                async with _bounded(capped(limit, budget), what):
                    chunk = await _next(sdk_stream)
                if chunk is None:
                    return _PrimedStream(sdk_stream, assembly, "", finished=True)
                piece = assembly.feed(chunk)
                if assembly.progressed and budget is not None:
                    budget.got_token = True
                if piece:
                    return _PrimedStream(sdk_stream, assembly, piece, finished=False)
        except BaseException as exc:
            if sdk_stream is not None:
                await _close(sdk_stream)
            if isinstance(exc, Exception):
                raise map_error(exc) from exc
            raise

    async def _rest(self, primed: _PrimedStream) -> AsyncGenerator[str, None]:
        """The stream after its first token: no retries; a transient failure is final."""
        budget = current_budget()
        try:
            while True:
                async with _bounded(capped(self._idle_s, budget), "stream stalled"):
                    chunk = await _next(primed.sdk_stream)
                if chunk is None:
                    return
                if piece := primed.assembly.feed(chunk):
                    yield piece
        except Exception as exc:
            mapped = map_error(exc)
            if isinstance(mapped, TransientFailure):
                kind = LLMTimeout if mapped.timeout else LLMUnavailable
                raise kind(f"stream broke after the first token: {mapped}") from exc
            raise mapped from exc


def _check_room(budget: ReplyBudget | None) -> None:
    """Refuse a call the reply's budget has no time left for (no request is sent)."""
    if budget is not None and budget.expired():
        raise LLMTimeout("no time left in the reply for an LLM call")


class _bounded:
    """``asyncio.timeout(seconds)`` whose expiry becomes ``TransientFailure(what)``; None: no limit."""

    def __init__(self, seconds: float | None, what: str):
        self._timer = asyncio.timeout(seconds)
        self._seconds, self._what = seconds, what

    async def __aenter__(self) -> None:
        await self._timer.__aenter__()

    async def __aexit__(self, exc_type, exc, tb) -> bool:
        try:
            await self._timer.__aexit__(exc_type, exc, tb)
        except TimeoutError as timeout:
            raise TransientFailure(f"timeout: {self._what} within {self._seconds:.1f}s", timeout=True) from timeout
        return False


async def _next(sdk_stream: Any) -> Any | None:
    try:
        return await sdk_stream.__anext__()
    except StopAsyncIteration:
        return None


async def _close(sdk_stream: Any) -> None:
    try:
        await sdk_stream.close()
    except Exception:  # closing a broken connection may fail again; nothing left to do
        pass


class _CallLog:
    """One structured log line per call: model, latency, tokens, attempts, outcome (no bodies, no key)."""

    def __init__(self, model: str, op: str, n_tools: int, clock: Callable[[], float]):
        self.model, self.op, self.n_tools, self._clock = model, op, n_tools, clock
        self.started = clock()
        self.stats = CallStats()

    def finish(self, exc: BaseException | None, usage: Usage | None = None) -> None:
        fields = {
            "model": self.model,
            "op": self.op,
            "tools": self.n_tools,
            "latency_ms": round((self._clock() - self.started) * 1000, 1),
            "attempts": self.stats.attempts,
            "prompt_tokens": usage.prompt_tokens if usage else None,
            "completion_tokens": usage.completion_tokens if usage else None,
        }
        if exc is None:
            log.info("llm_call", outcome="ok", **fields)
        elif isinstance(exc, LLMConfigError):
            log.error("llm_call", outcome="config_error", status=exc.status, **fields)
        elif isinstance(exc, LLMUnavailable):
            log.warning("llm_call", outcome="unavailable", error=str(exc), **fields)
        elif isinstance(exc, (asyncio.CancelledError, GeneratorExit)):
            log.info("llm_call", outcome="cancelled", **fields)
        else:
            log.error("llm_call", outcome="error", error=type(exc).__name__, **fields)
