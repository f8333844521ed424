"""OpenAIChatClient: the real openai SDK against the fake server, with a recorded (never real) sleep."""

from __future__ import annotations

import email.utils
import json
import random
import socket
import time

import pytest
from structlog.testing import capture_logs

from core.llm.client import OpenAIChatClient
from core.llm.errors import LLMConfigError, LLMNotConfigured, LLMUnavailable
from core.llm.retry import RetryPolicy, parse_retry_after
from core.llm.types import Completion, StreamDelta, StreamDone
from tests.fakes.openai_server import Reply, fake_llm  # noqa: F401

API_KEY = "sk-secret-test-key-123"
USER = [{"role": "user", "content": "何为仁？"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_classics",
            "description": "Search the Analects.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        },
    }
]


class Sleeps:
    """Records every wait the retry policy asks for; never sleeps."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def make_client(fake, sleeps: Sleeps | None = None, timeout_s: float = 5.0, **policy) -> OpenAIChatClient:
    return OpenAIChatClient(
        base_url=fake.base_url,
        api_key=API_KEY,
        model="fuzi-test",
        timeout_s=timeout_s,
        retry=RetryPolicy(**policy),
        sleep=sleeps or Sleeps(),
        rng=random.Random(7),
    )


async def collect(client: OpenAIChatClient, **kw) -> tuple[list[str], Completion]:
    deltas, done = [], None
    async for event in client.stream(USER, **kw):
        if isinstance(event, StreamDelta):
            deltas.append(event.text)
        else:
            assert isinstance(event, StreamDone) and done is None
            done = event.completion
    assert done is not None
    return deltas, done


# ---------------------------------------------------------------- happy paths
async def test_plain_completion(fake_llm):
    fake_llm.reply_text("仁者爱人。", usage=(12, 5))
    out = await make_client(fake_llm).complete(USER, temperature=0.3, max_tokens=100)
    assert out.text == "仁者爱人。" and out.tool_calls == ()
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (12, 5)
    assert out.model == "fuzi-test" and out.finish_reason == "stop"
    body = fake_llm.requests[0]
    assert body["messages"] == USER and body["model"] == "fuzi-test"
    assert body["temperature"] == 0.3 and body["max_tokens"] == 100
    assert "tools" not in body and not body.get("stream")
    assert fake_llm.headers[0]["authorization"] == f"Bearer {API_KEY}"


async def test_completion_with_tool_calls(fake_llm):
    fake_llm.reply_tool_calls([("search_classics", {"query": "仁"}), ("search_classics", {"query": "礼"}, "call_b")])
    out = await make_client(fake_llm).complete(USER, tools=TOOLS)
    assert [c.name for c in out.tool_calls] == ["search_classics", "search_classics"]
    assert [json.loads(c.arguments) for c in out.tool_calls] == [{"query": "仁"}, {"query": "礼"}]
    assert out.tool_calls[1].id == "call_b" and out.finish_reason == "tool_calls"
    assert fake_llm.requests[0]["tools"] == TOOLS
    assert out.as_message()["tool_calls"][1]["function"]["name"] == "search_classics"


async def test_stream_text_deltas_in_order_with_usage(fake_llm):
    fake_llm.stream_text("学而时习之，不亦说乎？", chunk=3, usage=(20, 9))
    deltas, done = await collect(make_client(fake_llm))
    assert deltas == ["学而时", "习之，", "不亦说", "乎？"]
    assert done.text == "学而时习之，不亦说乎？"
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (20, 9)
    assert fake_llm.requests[0]["stream"] is True
    assert fake_llm.requests[0]["stream_options"] == {"include_usage": True}


async def test_streamed_tool_call_deltas_reassembled_by_index(fake_llm):
    args_a = {"query": "君子不器", "k": 5}
    args_b = {"query": "关关雎鸠，在河之洲", "corpus": "shijing"}
    fake_llm.stream_tool_calls([("search_classics", args_a), ("web_search", args_b)], text="让我查一查", chunk=4)
    deltas, done = await collect(make_client(fake_llm), tools=TOOLS)
    assert "".join(deltas) == "让我查一查"
    assert [(c.id, c.name) for c in done.tool_calls] == [("call_1", "search_classics"), ("call_2", "web_search")]
    assert json.loads(done.tool_calls[0].arguments) == args_a
    assert json.loads(done.tool_calls[1].arguments) == args_b
    assert done.finish_reason == "tool_calls" and done.usage is not None


# ---------------------------------------------------------------- retries
@pytest.mark.parametrize(
    "headers, expected",
    [({"retry_after": 2}, 2.0), ({"retry_after_ms": 1500}, 1.5), ({"retry_after": "0.25"}, 0.25)],
)
async def test_429_with_retry_after_then_success(fake_llm, headers, expected):
    fake_llm.error(429, **headers).reply_text("好")
    sleeps = Sleeps()
    out = await make_client(fake_llm, sleeps).complete(USER)
    assert out.text == "好"
    assert sleeps.waits == [expected]
    assert len(fake_llm.requests) == 2


async def test_retry_after_http_date(fake_llm):
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    fake_llm.error(503, retry_after=when).reply_text("好")
    sleeps = Sleeps()
    assert (await make_client(fake_llm, sleeps).complete(USER)).text == "好"
    assert len(sleeps.waits) == 1 and 3.0 < sleeps.waits[0] <= 5.0


async def test_retry_after_longer_than_cap_is_not_waited_for(fake_llm):
    fake_llm.error(429, retry_after=120).reply_text("never")
    sleeps = Sleeps()
    with pytest.raises(LLMUnavailable):
        await make_client(fake_llm, sleeps, retry_after_max_s=20).complete(USER)
    assert len(fake_llm.requests) == 1 and sleeps.waits == []


async def test_503_three_times_is_unavailable_after_exactly_three_requests(fake_llm):
    fake_llm.error(503).error(503).error(503).reply_text("too late")
    sleeps = Sleeps()
    with pytest.raises(LLMUnavailable) as info:
        await make_client(fake_llm, sleeps).complete(USER)
    assert len(fake_llm.requests) == 3 and fake_llm.pending == 1
    assert "3 attempt" in str(info.value)
    assert len(sleeps.waits) == 2
    assert 0.375 <= sleeps.waits[0] <= 0.625 and 0.75 <= sleeps.waits[1] <= 1.25  # 0.5s, 1s ±25 %


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_config_errors_are_never_retried(fake_llm, status):
    fake_llm.error(status).reply_text("unused")
    sleeps = Sleeps()
    with pytest.raises(LLMConfigError) as info:
        await make_client(fake_llm, sleeps).complete(USER)
    assert info.value.status == status
    assert len(fake_llm.requests) == 1 and sleeps.waits == []


async def test_401_stream_is_config_error_after_one_request(fake_llm):
    fake_llm.error(401, message=f"Incorrect API key provided: {API_KEY}")
    with pytest.raises(LLMConfigError) as info:
        await collect(make_client(fake_llm))
    assert info.value.status == 401 and len(fake_llm.requests) == 1
    assert API_KEY not in str(info.value)


async def test_quota_429_is_a_config_error(fake_llm):
    fake_llm.error(429, code="insufficient_quota")
    with pytest.raises(LLMConfigError):
        await make_client(fake_llm).complete(USER)
    assert len(fake_llm.requests) == 1


def test_jitter_stays_within_25_percent():
    policy, rng = RetryPolicy(attempts=3, base_s=0.5, max_s=8, jitter=0.25), random.Random(1)
    for attempt, nominal in [(1, 0.5), (2, 1.0), (3, 2.0), (6, 8.0), (10, 8.0)]:
        draws = [policy.backoff(attempt, rng) for _ in range(2000)]
        assert min(draws) >= nominal * 0.75 and max(draws) <= nominal * 1.25
        assert min(draws) < nominal * 0.8 and max(draws) > nominal * 1.2  # the spread is really used


def test_parse_retry_after_variants():
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=lambda: 1445412470.0) == 10.0
    assert parse_retry_after({"retry-after": "soon"}) is None and parse_retry_after({}) is None


async def test_timeout_is_retried(fake_llm):
    fake_llm.delay(3.0, then="slow").reply_text("快")
    sleeps = Sleeps()
    out = await make_client(fake_llm, sleeps, timeout_s=0.3).complete(USER)
    assert out.text == "快" and len(fake_llm.requests) == 2 and len(sleeps.waits) == 1


async def test_connection_drop_is_retried(fake_llm):
    fake_llm.stream_then_fail("x", after=0).reply_text("ok")
    assert (await make_client(fake_llm).complete(USER)).text == "ok"
    assert len(fake_llm.requests) == 2


# ---------------------------------------------------------------- streams and retries
async def test_stream_failing_before_first_token_is_retried(fake_llm):
    fake_llm.error(503).stream_then_fail("丢失", after=0).stream_text("温故而知新", chunk=2)
    sleeps = Sleeps()
    deltas, done = await collect(make_client(fake_llm, sleeps))
    assert "".join(deltas) == "温故而知新" and done.text == "温故而知新"
    assert len(fake_llm.requests) == 3 and len(sleeps.waits) == 2


async def test_tool_call_stream_broken_before_any_text_is_retried(fake_llm):
    fake_llm.push(Reply(tool_calls=[("search_classics", {"query": "仁"})], chunk=3, fail_after=2))
    fake_llm.stream_tool_calls([("search_classics", {"query": "仁"})])
    deltas, done = await collect(make_client(fake_llm))
    assert deltas == [] and json.loads(done.tool_calls[0].arguments) == {"query": "仁"}
    assert len(fake_llm.requests) == 2


async def test_stream_failing_after_first_token_is_not_retried(fake_llm):
    fake_llm.stream_then_fail("有朋自远方来", after=2, chunk=2).stream_text("duplicate")
    sleeps = Sleeps()
    got = []
    with pytest.raises(LLMUnavailable, match="after the first token"):
        async for event in make_client(fake_llm, sleeps).stream(USER):
            got.append(event)
    assert got == [StreamDelta("有朋"), StreamDelta("自远")]
    assert len(fake_llm.requests) == 1 and fake_llm.pending == 1 and sleeps.waits == []


async def test_stream_stalling_after_first_token_times_out_without_retry(fake_llm):
    fake_llm.stream_text("慎终追远", chunk=2, chunk_delay=2.0).stream_text("duplicate")
    got = []
    with pytest.raises(LLMUnavailable, match="after the first token"):
        async for event in make_client(fake_llm, timeout_s=0.3).stream(USER):
            got.append(event)
    assert got == [StreamDelta("慎终")] and len(fake_llm.requests) == 1


async def test_endpoint_down_is_unavailable_after_all_attempts():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps = Sleeps()
    client = OpenAIChatClient(
        base_url=f"http://127.0.0.1:{port}/v1", api_key=API_KEY, model="m", retry=RetryPolicy(), sleep=sleeps
    )
    with pytest.raises(LLMUnavailable, match="3 attempt"):
        await client.complete(USER)
    assert len(sleeps.waits) == 2


async def test_stream_abandoned_early_releases_cleanly(fake_llm):
    fake_llm.stream_text("一二三四五六七八", chunk=1)
    client = make_client(fake_llm)
    events = client.stream(USER)
    with capture_logs() as logs:
        async for _ in events:
            break
        await events.aclose()
    assert [e["outcome"] for e in logs if e["event"] == "llm_call"] == ["cancelled"]
    fake_llm.reply_text("next")
    assert (await client.complete(USER)).text == "next"


# ---------------------------------------------------------------- logging and configuration
async def test_call_log_has_figures_and_no_secrets(fake_llm):
    fake_llm.error(500).reply_text("秘密的回答", usage=(30, 4))
    with capture_logs() as logs:
        await make_client(fake_llm).complete([{"role": "user", "content": "用户的秘密问题"}])
    call = [e for e in logs if e["event"] == "llm_call"]
    assert len(call) == 1
    assert call[0]["outcome"] == "ok" and call[0]["attempts"] == 2 and call[0]["model"] == "fuzi-test"
    assert (call[0]["prompt_tokens"], call[0]["completion_tokens"]) == (30, 4)
    assert call[0]["latency_ms"] >= 0
    assert any(e["event"] == "llm_retry" and e["status"] == 500 for e in logs)
    dump = repr(logs)
    assert API_KEY not in dump and "用户的秘密问题" not in dump and "秘密的回答" not in dump


async def test_config_error_is_logged_as_error_once(fake_llm):
    fake_llm.error(403)
    with capture_logs() as logs, pytest.raises(LLMConfigError):
        await make_client(fake_llm).complete(USER)
    assert [(e["log_level"], e["outcome"], e["status"]) for e in logs if e["event"] == "llm_call"] == [
        ("error", "config_error", 403)
    ]


@pytest.mark.parametrize("key", [None, ""])
def test_missing_key_is_not_configured(key):
    with pytest.raises(LLMNotConfigured):
        OpenAIChatClient(base_url="http://127.0.0.1:9/v1", api_key=key, model="m")


async def test_a_storm_of_failures_across_calls_stops_retries(fake_llm):
    fake_llm.strict = True  # every request: 500
    sleeps = Sleeps()
    client = make_client(fake_llm, sleeps, storm_failures=5, storm_window_s=60)
    for _ in range(2):  # 2 calls × 3 attempts: the 5th failed attempt starts the storm
        with pytest.raises(LLMUnavailable):
            await client.complete(USER)
    assert len(fake_llm.requests) == 5
    with pytest.raises(LLMUnavailable, match="1 attempt"):  # no retries while failures pile up
        await client.complete(USER)
    assert len(fake_llm.requests) == 6


async def test_failures_outside_the_storm_window_are_forgotten(fake_llm):
    fake_llm.strict = True
    now = [0.0]
    client = make_client(fake_llm, storm_failures=3, storm_window_s=10)
    client._retrier._clock = lambda: now[0]
    with pytest.raises(LLMUnavailable, match="3 attempt"):
        await client.complete(USER)
    now[0] += 11
    with pytest.raises(LLMUnavailable, match="3 attempt"):  # the old failures aged out
        await client.complete(USER)
