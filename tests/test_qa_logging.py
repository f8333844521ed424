"""QA: input that is turned away still leaves a log line with its trace id (and no message body)."""

from __future__ import annotations

import io
import json

import pytest

from bot.logging import configure_logging, reset_logging
from core.engine.commands import CommandRouter
from tests.helpers_engine import collect, incoming, make_service, sqlite_storage


@pytest.fixture
def log_stream():
    stream = io.StringIO()
    yield stream
    reset_logging()


@pytest.mark.parametrize(
    "text, command, why",
    [
        ("", None, "empty"),
        ("  \t ", None, "empty"),
        ("仁义" * 30, None, "too_long"),
        ("\u200b\u200b", None, "empty"),  # the guard cleans it to nothing
        ("秘密参数", "frobnicate", "unknown_command"),
    ],
)
async def test_turned_away_input_is_logged_with_its_trace_id(tmp_path, log_stream, text, command, why):
    service = make_service(sqlite_storage(tmp_path), router=CommandRouter(), max_input_chars=50)
    configure_logging("production", "DEBUG", stream=log_stream)
    message = incoming(text, command=command)
    [notice] = await collect(service, message)
    records = [json.loads(line) for line in log_stream.getvalue().splitlines() if line.strip()]
    mine = [r for r in records if r.get("trace_id") == message.trace_id and r["event"] != "person_created"]
    assert mine, records
    assert why in json.dumps(mine)
    assert "仁义" not in log_stream.getvalue() and "秘密" not in log_stream.getvalue()  # no message body
