"""Logging: JSON lines in production, console otherwise; one trace_id on every line a message causes."""

from __future__ import annotations

import io
import json
import logging

import pytest
import structlog

from bot.logging import configure_logging, reset_logging
from core.logging import bind_trace, current_trace_id
from core.types import Incoming
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_engine import collect, final_of, incoming
from tests.test_service_ladder import corpus, engine  # noqa: F401  (fixtures)


@pytest.fixture
def log_stream():
    stream = io.StringIO()
    yield stream
    reset_logging()


def lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_production_writes_json_lines_with_bound_ids(log_stream):
    configure_logging("production", "INFO", stream=log_stream)
    message = Incoming("telegram", "42", "-100", "hi", is_group=True)
    with bind_trace(message) as trace:
        assert current_trace_id() == trace == message.trace_id
        structlog.get_logger("core.test").info("hello", tool="search_classics")
        logging.getLogger("openai").warning("library line %s", "with args")
        structlog.get_logger("core.test").debug("hidden at INFO")
    structlog.get_logger("core.test").info("outside")
    first, library, outside = lines(log_stream)
    assert first["event"] == "hello" and first["level"] == "info" and first["logger"] == "core.test"
    assert (first["trace_id"], first["platform"], first["chat"], first["user"]) == (
        message.trace_id,
        "telegram",
        "telegram:-100",
        "telegram:42",
    )
    assert first["timestamp"].endswith("Z")
    assert library["event"] == "library line with args" and library["trace_id"] == message.trace_id
    assert "trace_id" not in outside and current_trace_id() == ""


def test_development_renders_for_humans(log_stream):
    configure_logging("development", "DEBUG", stream=log_stream)
    structlog.get_logger("core.test").debug("readable", n=1)
    text = log_stream.getvalue()
    assert "readable" in text and "n=1" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text.splitlines()[0])


def test_development_renders_tracebacks_as_python_does(log_stream):
    """`format_exc_info` turns a traceback into the interpreter's own text before the console
    renderer sees it, so the renderer's formatter (rich's, which bot/lean_imports.py leaves unloaded)
    is never asked: a structlog line and a library's line both end in the plain traceback."""
    import traceback

    configure_logging("development", "INFO", stream=log_stream)
    try:
        raise ValueError("bad value")
    except ValueError as exc:
        expected = "".join(traceback.format_exception(exc)).rstrip("\n")
        structlog.get_logger("core.test").exception("failed", n=2)
        logging.getLogger("lib").exception("library failed")
    text = log_stream.getvalue()
    assert text.count(f"\n{expected}\n") == 2 and "n=2" in text and "library failed" in text and "╭" not in text


def test_extra_processors_see_every_line(log_stream):
    def redact(_logger, _name, event: dict) -> dict:
        return {k: ("[redacted]" if k == "api_key" else v) for k, v in event.items()}

    configure_logging("production", "INFO", stream=log_stream, extra_processors=[redact])
    structlog.get_logger("x").info("configured", api_key="sk-live-123")
    logging.getLogger("lib").info("plain %s", "line")
    native, foreign = lines(log_stream)
    assert native["api_key"] == "[redacted]" and "sk-live-123" not in log_stream.getvalue()
    assert foreign["event"] == "plain line"


def test_url_logging_libraries_are_quiet(log_stream):
    configure_logging("production", "DEBUG", stream=log_stream)
    logging.getLogger("httpx").info("HTTP Request: POST https://api.telegram.org/bot123:SECRET/sendMessage")
    assert "SECRET" not in log_stream.getvalue()


async def test_every_line_of_one_message_carries_its_trace_id(log_stream, engine, fake_llm):
    service, _, _ = engine(api_key="sk-very-secret-key")
    configure_logging("production", "DEBUG", stream=log_stream)
    fake_llm.error(503)  # L0 fails → the fallback is logged too
    fake_llm.stream_text("学而时习之[1]。")
    message = incoming("学而时习之")
    final = final_of(await collect(service, message))
    await service.aclose()
    records = [r for r in lines(log_stream) if not r["logger"].startswith(("aiohttp", "asyncio"))]
    events = {r["event"] for r in records}
    assert {"llm_call", "fallback", "reply"} <= events
    assert all(r.get("trace_id") == message.trace_id for r in records), [
        r for r in records if r.get("trace_id") != message.trace_id
    ]
    reply = next(r for r in records if r["event"] == "reply")
    assert reply["fallback_level"] == final.level == 1
    assert "sk-very-secret-key" not in log_stream.getvalue()
    assert "学而时习之" not in log_stream.getvalue()  # ids and figures, never message bodies


def test_the_guards_secret_redactor_plugs_in(log_stream):
    from core.guards import SecretRedactor

    token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
    configure_logging("production", "INFO", stream=log_stream, extra_processors=[SecretRedactor([token])])
    structlog.get_logger("adapters.telegram").info("request_failed", url=f"https://api.telegram.org/bot{token}/getMe")
    try:
        raise RuntimeError(f"bad token {token}")
    except RuntimeError:
        logging.getLogger("telegram.ext").exception("library failure")
    assert token not in log_stream.getvalue()
    native, library = lines(log_stream)
    assert native["url"].startswith("https://api.telegram.org/bot[REDACTED]")
    assert "RuntimeError" in library["exception"]
