"""A scripted fake of the OpenAI chat-completions HTTP API on 127.0.0.1, for the real `openai` SDK.

Each test queues *steps*; every request to ``POST /v1/chat/completions`` (or ``/chat/completions``)
takes the next step. Content steps render the way the request asks: a JSON completion when the body
has no ``"stream": true``, otherwise SSE chunks (``data: {...}`` … ``data: [DONE]``), with a final usage
chunk when ``stream_options.include_usage`` is set. So ``reply_text`` and ``stream_text`` differ only in
the defaults for chunking; both work for ``complete`` and ``stream`` callers.

When the queue is empty the server answers with the *default*: a text reply ``"echo: <last user
message>"`` (change it with :meth:`FakeOpenAI.set_default`, or set ``strict=True`` to get a 500 instead).

Usage::

    from tests.fakes.openai_server import fake_llm  # noqa: F401

    async def test_x(fake_llm):
        fake_llm.error(429, retry_after=2)
        fake_llm.reply_tool_calls([("search_classics", {"query": "仁"})])
        fake_llm.stream_text("子曰：学而时习之。", chunk=3)
        ...  # AsyncOpenAI(base_url=fake_llm.base_url, api_key="k", max_retries=0)
        assert fake_llm.requests[1]["messages"][-1]["role"] == "tool"
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest_asyncio
from aiohttp import web

ToolSpec = tuple  # (name, args) or (name, args, id); args: dict (JSON-encoded) or raw str
Responder = Callable[[dict], Any]


@dataclass
class Reply:
    """A model answer: text and/or tool calls, rendered as JSON or SSE per request."""

    text: str = ""
    tool_calls: Sequence[ToolSpec] = ()
    chunk: int = 8  # characters of text / arguments per SSE chunk
    interleave: bool = False  # stream the arguments of several tool calls alternately
    usage: tuple[int, int] | None = None  # (prompt, completion); None = estimated
    finish_reason: str | None = None  # None = "tool_calls" if tool calls else "stop"
    delay: float = 0.0  # seconds before the response starts
    chunk_delay: float = 0.0  # seconds between SSE content chunks (the first one goes out at once)
    fail_after: int | None = None  # SSE only: drop the connection after this many content chunks


@dataclass
class Error:
    """An HTTP error in OpenAI's error format, optionally with retry-after headers."""

    status: int
    message: str = ""
    retry_after: float | str | None = None
    retry_after_ms: float | None = None
    delay: float = 0.0
    code: str | None = None  # OpenAI's error.code, e.g. "insufficient_quota"


@dataclass
class Hang:
    """Sleep ``seconds`` (forever if None, until the server stops), then answer with ``then``."""

    seconds: float | None
    then: Reply | None = None


@dataclass
class Handler:
    """Answer by a function of the parsed request body (returns str, tool-call list or a step)."""

    fn: Responder


Step = Reply | Error | Hang | Handler


@dataclass
class FakeOpenAI:
    """The scripted server. Start with :meth:`start`, stop with :meth:`stop` (the fixture does both).

    Attributes:
        requests: every parsed request body, in arrival order.
        headers: the matching request headers (lower-case names).
        base_url: ``http://127.0.0.1:<port>/v1`` once started.
        strict: when True, an empty queue answers 500 instead of the default reply.
    """

    strict: bool = False
    requests: list[dict] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    base_url: str = ""
    _steps: deque = field(default_factory=deque)
    _default: Responder | None = None
    _runner: web.AppRunner | None = None
    _stopping: asyncio.Event = field(default_factory=asyncio.Event)
    _ids: int = 0

    # ---------------------------------------------------------------- scripting
    def reply_text(self, text: str, **opts: Any) -> FakeOpenAI:
        """Queue a text answer (options: see :class:`Reply`)."""
        return self._push(Reply(text=text, **opts))

    def stream_text(self, text: str, chunk: int = 4, **opts: Any) -> FakeOpenAI:
        """Queue a text answer streamed ``chunk`` characters at a time."""
        return self._push(Reply(text=text, chunk=chunk, **opts))

    def reply_tool_calls(self, calls: Sequence[ToolSpec], text: str = "", **opts: Any) -> FakeOpenAI:
        """Queue tool calls: ``[(name, args_dict_or_raw_json), ...]``, ids ``call_<n>`` unless given."""
        return self._push(Reply(text=text, tool_calls=list(calls), **opts))

    def stream_tool_calls(
        self, calls: Sequence[ToolSpec], text: str = "", chunk: int = 5, interleave: bool = True, **opts: Any
    ) -> FakeOpenAI:
        """Queue tool calls whose argument pieces stream interleaved across chunks by index."""
        return self._push(Reply(text=text, tool_calls=list(calls), chunk=chunk, interleave=interleave, **opts))

    def error(
        self,
        status: int,
        *,
        retry_after: float | str | None = None,
        retry_after_ms: float | None = None,
        message: str = "",
        delay: float = 0.0,
        code: str | None = None,
    ) -> FakeOpenAI:
        """Queue an HTTP error (e.g. 429 with ``retry_after=2`` or an HTTP-date string, 503, 401)."""
        return self._push(Error(status, message, retry_after, retry_after_ms, delay, code))

    def delay(self, seconds: float, then: str | Reply | None = None) -> FakeOpenAI:
        """Queue a slow answer: wait ``seconds``, then reply ``then`` (default: the default reply)."""
        return self._push(Hang(seconds, Reply(text=then) if isinstance(then, str) else then))

    def hang(self) -> FakeOpenAI:
        """Queue a request that never answers (until the server stops)."""
        return self._push(Hang(None))

    def stream_then_fail(self, text: str, after: int = 2, chunk: int = 4, **opts: Any) -> FakeOpenAI:
        """Queue a stream that sends ``after`` text chunks and then drops the connection.

        With ``after=0`` the status line and headers go out but no token does. A non-streaming
        request taking this step gets its connection dropped before any byte.
        """
        return self._push(Reply(text=text, chunk=chunk, fail_after=after, **opts))

    def handler(self, fn: Responder) -> FakeOpenAI:
        """Queue one step answered by ``fn(body)``: a str (text), a list of tool specs, or a step."""
        return self._push(Handler(fn))

    def set_default(self, fn: Responder | None) -> FakeOpenAI:
        """Answer requests that find the queue empty with ``fn(body)`` (None restores the echo)."""
        self._default = fn
        return self

    def push(self, step: Step) -> FakeOpenAI:
        """Queue any step object (Reply, Error, Hang, Handler)."""
        return self._push(step)

    @property
    def pending(self) -> int:
        """How many queued steps no request has taken yet."""
        return len(self._steps)

    def _push(self, step: Step) -> FakeOpenAI:
        self._steps.append(step)
        return self

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> FakeOpenAI:
        """Bind 127.0.0.1 on a free port and serve."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5, handle_signals=False)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        await web.SockSite(self._runner, sock).start()
        self.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        return self

    async def stop(self) -> None:
        """Wake hanging requests and shut the server down."""
        self._stopping.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---------------------------------------------------------------- serving
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        self.headers.append({k.lower(): v for k, v in request.headers.items()})
        step = self._resolve(self._steps.popleft() if self._steps else self._default_step(body), body)
        if isinstance(step, Hang):
            await self._sleep(step.seconds)
            step = step.then or self._resolve(self._default_step(body), body)
        if isinstance(step, Error):
            await asyncio.sleep(step.delay)
            return _error_response(step)
        await asyncio.sleep(step.delay)
        if body.get("stream"):
            return await self._stream(request, body, step)
        if step.fail_after is not None:
            request.transport.close()
            return web.Response(status=500)
        return web.json_response(self._completion(body, step))

    def _default_step(self, body: dict) -> Step:
        if self._default is not None:
            return Handler(self._default)
        if self.strict:
            return Error(500, "fake-openai: no scripted step left")
        return Reply(text="echo: " + _last_user_text(body))

    def _resolve(self, step: Step, body: dict) -> Step:
        if not isinstance(step, Handler):
            return step
        out = step.fn(body)
        if isinstance(out, str):
            return Reply(text=out)
        if isinstance(out, (list, tuple)):
            return Reply(tool_calls=list(out))
        return self._resolve(out, body)

    async def _sleep(self, seconds: float | None) -> None:
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            pass

    def _next_id(self) -> str:
        self._ids += 1
        return f"call_{self._ids}"

    def _calls(self, step: Reply) -> list[tuple[str, str, str]]:
        """Normalise tool specs to (id, name, arguments_json)."""
        out = []
        for spec in step.tool_calls:
            name, args = spec[0], spec[1]
            call_id = spec[2] if len(spec) > 2 else self._next_id()
            out.append((call_id, name, args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)))
        return out

    def _completion(self, body: dict, step: Reply) -> dict:
        calls = self._calls(step)
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if calls:
            message["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
            ]
        choice = {"index": 0, "message": message, "finish_reason": _finish(step, calls), "logprobs": None}
        return {**_envelope(body, "chat.completion"), "choices": [choice], "usage": _usage(body, step, calls)}

    async def _stream(self, request: web.Request, body: dict, step: Reply) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        env = _envelope(body, "chat.completion.chunk")
        calls = self._calls(step)
        deltas = [{"role": "assistant", "content": ""}] + _content_deltas(step, calls)
        for n, delta in enumerate(deltas):
            if step.fail_after is not None and n > step.fail_after:
                request.transport.close()
                return resp
            if n > 1:  # the role chunk and the first content chunk go out at once
                await asyncio.sleep(step.chunk_delay)
            await _send(resp, env, delta, None, include_usage)
        await asyncio.sleep(step.chunk_delay)
        await _send(resp, env, {}, _finish(step, calls), include_usage)
        if include_usage:
            await _write(resp, {**env, "choices": [], "usage": _usage(body, step, calls)})
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp


# -------------------------------------------------------------------- rendering helpers
def _envelope(body: dict, obj: str) -> dict:
    return {"id": "chatcmpl-fake", "object": obj, "created": int(time.time()), "model": body.get("model", "")}


def _finish(step: Reply, calls: list) -> str:
    return step.finish_reason or ("tool_calls" if calls else "stop")


def _usage(body: dict, step: Reply, calls: list) -> dict:
    if step.usage is not None:
        prompt, completion = step.usage
    else:
        prompt = max(1, len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4)
        completion = max(1, (len(step.text) + sum(len(a) for _, _, a in calls)) // 2)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _content_deltas(step: Reply, calls: list[tuple[str, str, str]]) -> list[dict]:
    """Text deltas, then tool-call deltas: id+name first per index, then argument pieces."""
    deltas: list[dict] = [{"content": p} for p in _pieces(step.text, step.chunk)]
    heads = [
        {"index": i, "id": cid, "type": "function", "function": {"name": name, "arguments": ""}}
        for i, (cid, name, _) in enumerate(calls)
    ]
    bodies = [
        [{"index": i, "function": {"arguments": p}} for p in _pieces(args, step.chunk)]
        for i, (_, _, args) in enumerate(calls)
    ]
    if step.interleave:
        order = list(heads)
        for round_ in range(max((len(b) for b in bodies), default=0)):
            order += [b[round_] for b in bodies if round_ < len(b)]
    else:
        order = [x for h, b in zip(heads, bodies) for x in [h, *b]]
    return deltas + [{"tool_calls": [d]} for d in order]


async def _send(resp: web.StreamResponse, env: dict, delta: dict, finish: str | None, usage: bool) -> None:
    chunk = {**env, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}
    if usage:
        chunk["usage"] = None
    await _write(resp, chunk)


async def _write(resp: web.StreamResponse, payload: dict) -> None:
    await resp.write(b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n")


def _error_response(step: Error) -> web.Response:
    headers = {}
    if step.retry_after is not None:
        headers["retry-after"] = str(step.retry_after)
    if step.retry_after_ms is not None:
        headers["retry-after-ms"] = str(step.retry_after_ms)
    kind = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 429: "rate_limit_error"}
    err = {"message": step.message or f"fake-openai error {step.status}", "type": kind.get(step.status, "server_error")}
    return web.json_response({"error": {**err, "code": step.code, "param": None}}, status=step.status, headers=headers)


def _last_user_text(body: dict) -> str:
    for msg in reversed(body.get("messages", [])):
        if msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, list):
                return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content or ""
    return ""


@pytest_asyncio.fixture
async def fake_llm():
    """A started :class:`FakeOpenAI` (``.base_url`` ends in ``/v1``), stopped after the test."""
    fake = await FakeOpenAI().start()
    try:
        yield fake
    finally:
        await fake.stop()
