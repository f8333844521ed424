"""The fake OpenAI server speaks the protocol the real `openai` SDK expects."""

from __future__ import annotations

import asyncio
import json
import time

import openai
import pytest

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_wait import eventually


def sdk(fake, timeout: float = 5.0) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0, timeout=timeout)


async def test_json_completion_text_and_usage(fake_llm):
    fake_llm.reply_text("子曰：学而时习之。", usage=(11, 7))
    out = await sdk(fake_llm).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert out.choices[0].message.content == "子曰：学而时习之。"
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (11, 7)
    assert fake_llm.requests[0]["messages"] == [{"role": "user", "content": "hi"}]
    assert fake_llm.headers[0]["authorization"] == "Bearer sk-test"


async def test_json_tool_calls(fake_llm):
    fake_llm.reply_tool_calls([("search_classics", {"query": "仁"}), ("web_search", '{"q": "x"}', "call_x")])
    out = await sdk(fake_llm).chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    calls = out.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["search_classics", "web_search"]
    assert json.loads(calls[0].function.arguments) == {"query": "仁"}
    assert calls[1].id == "call_x"
    assert out.choices[0].finish_reason == "tool_calls"


async def test_sse_text_and_usage_chunk(fake_llm):
    fake_llm.stream_text("abcdefghij", chunk=3, usage=(5, 4))
    stream = await sdk(fake_llm).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "q"}], stream=True, stream_options={"include_usage": True}
    )
    texts, usage = [], None
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            texts.append(chunk.choices[0].delta.content)
        usage = chunk.usage or usage
    assert texts == ["abc", "def", "ghi", "j"]
    assert (usage.prompt_tokens, usage.completion_tokens) == (5, 4)


async def test_sse_tool_call_deltas_interleaved(fake_llm):
    fake_llm.stream_tool_calls([("a", {"x": "long value"}), ("b", {"y": 2})], chunk=4)
    stream = await sdk(fake_llm).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "q"}], stream=True
    )
    seen_indices, args = [], {}
    async for chunk in stream:
        for d in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            seen_indices.append(d.index)
            args[d.index] = args.get(d.index, "") + (d.function.arguments or "")
    assert json.loads(args[0]) == {"x": "long value"} and json.loads(args[1]) == {"y": 2}
    assert seen_indices[:4] == [0, 1, 0, 1]  # heads, then pieces alternate


async def test_error_with_retry_after(fake_llm):
    fake_llm.error(429, retry_after=3)
    with pytest.raises(openai.RateLimitError) as info:
        await sdk(fake_llm).chat.completions.create(model="m", messages=[])
    assert info.value.response.headers["retry-after"] == "3"


async def test_stream_then_fail_drops_connection(fake_llm):
    fake_llm.stream_then_fail("abcdefgh", after=1, chunk=2)
    stream = await sdk(fake_llm).chat.completions.create(model="m", messages=[], stream=True)
    got = []
    with pytest.raises(openai.APIConnectionError):
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                got.append(chunk.choices[0].delta.content)
    assert got == ["ab"]


async def test_delay_times_out_then_default_echo(fake_llm):
    fake_llm.delay(2.0)
    with pytest.raises(openai.APITimeoutError):
        await sdk(fake_llm, timeout=0.2).chat.completions.create(model="m", messages=[])
    out = await sdk(fake_llm).chat.completions.create(model="m", messages=[{"role": "user", "content": "你好"}])
    assert out.choices[0].message.content == "echo: 你好"
    assert len(fake_llm.requests) == 2


async def test_handler_answers_from_request(fake_llm):
    fake_llm.handler(lambda body: f"{len(body['tools'])} tools")
    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}]
    out = await sdk(fake_llm).chat.completions.create(model="m", messages=[], tools=tools)
    assert out.choices[0].message.content == "1 tools"


async def test_strict_mode_answers_500_when_unscripted(fake_llm):
    fake_llm.strict = True
    with pytest.raises(openai.InternalServerError):
        await sdk(fake_llm).chat.completions.create(model="m", messages=[])


async def test_hang_is_released_when_the_server_stops():
    from tests.fakes.openai_server import FakeOpenAI

    fake = await FakeOpenAI().start()
    fake.hang()
    pending = asyncio.create_task(sdk(fake, timeout=30).chat.completions.create(model="m", messages=[]))
    await eventually(lambda: fake.requests)  # a loaded CI machine may take a while to send it
    assert not pending.done() and len(fake.requests) == 1
    started = time.monotonic()
    await fake.stop()
    await asyncio.wait([pending], timeout=5)
    assert pending.done() and time.monotonic() - started < 3
    pending.exception() if not pending.cancelled() else None
