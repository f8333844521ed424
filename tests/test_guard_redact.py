"""Secrets never reach rendered log output: inside exception text, tracebacks, URLs and values."""

from __future__ import annotations

import io
import json

import pytest
import structlog

from core.guards.redact import MASK, SecretRedactor

TELEGRAM = "123456789:AAHk3vZ-Q_abcdefghijklmnopqrstuvwxyz"  # 35 characters after the colon
OPENAI = "sk-proj-Abc123def456ghi789jkl012mno345"
DISCORD = "MTA5ODc2NTQzMjEwOTg3NjU0Mw.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789"
CUSTOM = "tavily-9f8e7d6c5b4a"  # no known shape: only redacted because it was registered


def make_logger(renderer: object) -> tuple[structlog.BoundLogger, io.StringIO]:
    out = io.StringIO()
    logger = structlog.wrap_logger(
        structlog.PrintLogger(file=out),
        processors=[
            structlog.processors.add_log_level,
            SecretRedactor(secrets=[CUSTOM, None, ""]),
            renderer,
        ],
    )
    return logger, out


RENDERERS = [structlog.processors.JSONRenderer(), structlog.dev.ConsoleRenderer(colors=False)]


def fail_with_token() -> None:
    raise RuntimeError(f"POST https://api.telegram.org/bot{TELEGRAM}/sendMessage failed (key {OPENAI})")


@pytest.mark.parametrize("renderer", RENDERERS, ids=["json", "console"])
def test_token_inside_an_exception_message_is_redacted(renderer: object) -> None:
    log, out = make_logger(renderer)
    try:
        fail_with_token()
    except RuntimeError:
        log.exception("telegram.send_failed", chat="c1")
    text = out.getvalue()
    assert "telegram.send_failed" in text and "RuntimeError" in text and "fail_with_token" in text
    assert TELEGRAM not in text and TELEGRAM.split(":")[1] not in text and OPENAI not in text
    assert MASK in text


@pytest.mark.parametrize("renderer", RENDERERS, ids=["json", "console"])
def test_tokens_in_urls_values_and_exception_objects_are_redacted(renderer: object) -> None:
    log, out = make_logger(renderer)
    exc = ValueError(f"bad token {DISCORD}")
    log.warning(
        "http.error",
        url=f"http://127.0.0.1:8081/bot{TELEGRAM}/getUpdates?offset=3",
        search=f"https://api.example.com/search?q=ren&api_key={CUSTOM}",
        headers={"Authorization": f"Bot {DISCORD}", "X-Trace": "t-1"},
        error=exc,
        nested=[f"Bearer {OPENAI}"],
    )
    text = out.getvalue()
    for secret in (TELEGRAM, DISCORD, OPENAI, CUSTOM):
        assert secret not in text
    assert "127.0.0.1:8081/bot" in text and "offset=3" in text and "t-1" in text


def test_json_output_stays_valid_and_keeps_harmless_fields() -> None:
    log, out = make_logger(structlog.processors.JSONRenderer())
    log.info("llm.call", prompt_tokens=120, chat_key="telegram:42", trace_id="abc", note=f"key={OPENAI}")
    row = json.loads(out.getvalue())
    assert row["prompt_tokens"] == 120 and row["chat_key"] == "telegram:42" and row["trace_id"] == "abc"
    assert OPENAI not in row["note"]


def test_known_secret_is_redacted_url_encoded_too() -> None:
    secret = "p@ss/word+with=chars"
    redactor = SecretRedactor([secret])
    assert redactor.redact(f"a {secret} b") == f"a {MASK} b"
    assert "p%40ss%2Fword" not in redactor.redact("https://x.test/?a=p%40ss%2Fword%2Bwith%3Dchars")
    assert redactor.redact("short ok") == "short ok"


@pytest.mark.parametrize(
    "line",
    [
        "first token: connection error",
        "auth: failed for chat 42",
        "secret: none configured, using defaults",
        "password: please enter it again",
        "authorization: required for this endpoint",
        "key: telegram:42",
        "prompt_tokens=120 completion_tokens=80",
    ],
)
def test_ordinary_words_after_a_secret_name_are_kept(line: str) -> None:
    assert SecretRedactor().redact(line) == line


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("token: 9f8e7d6c5b4a3f2e1d0c9b8a", "9f8e7d6c5b4a3f2e1d0c9b8a"),
        ("x-api-key: 0123456789abcdef0123", "0123456789abcdef0123"),
        ("https://x.test/search?q=ren&token=plainword&page=2", "plainword"),
        ("api_key=hunter22 sent", "hunter22"),
        ("password = 'correcthorse'", "correcthorse"),
        ("refresh_token=abcdefgh", "abcdefgh"),
        ('{"api_key": "abc def ghi", "n": 1}', "abc def ghi"),
        ("{'client_secret': 'shortish', 'id': 3}", "shortish"),
        ("Authorization: Bearer abcdefgh12", "abcdefgh12"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
        (f"first token: {TELEGRAM} failed", TELEGRAM.split(":")[1]),
    ],
)
def test_secret_values_after_a_secret_name_are_still_redacted(line: str, secret: str) -> None:
    text = SecretRedactor().redact(line)
    assert secret not in text and MASK in text


def test_only_the_value_is_masked_in_query_strings_and_json() -> None:
    redactor = SecretRedactor()
    assert redactor.redact("GET /s?q=ren&api_key=abc123xyz&page=2") == f"GET /s?q=ren&api_key={MASK}&page=2"
    assert redactor.redact('{"token": "abcdefgh", "chat": "telegram:42"}') == (
        f'{{"token": "{MASK}", "chat": "telegram:42"}}'
    )


def test_a_value_seen_before_a_secret_was_added_is_masked_after_it() -> None:
    redactor = SecretRedactor()
    value = "chat=web:hunter2-opaque/main"
    assert redactor.redact(value) == value and redactor.redact(value) == value  # the second from memory
    redactor.add_secret("hunter2-opaque")
    assert redactor.redact(value) == f"chat=web:{MASK}/main"
    long = "x" * 300 + "hunter2-opaque"  # past the remembered length: the same answer
    assert redactor.redact(long) == "x" * 300 + MASK
