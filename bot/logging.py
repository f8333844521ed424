"""Logging set-up for every entry point: structlog over stdlib logging, one handler on stderr.

Production (`FUZI_ENV=production`) writes one JSON object per line; development a readable console.
Library loggers (openai, httpx, aiohttp, telegram, discord) go through the same processors, so
their lines carry the bound trace id too. `extra_processors` is where the guards' secret-redaction
processor plugs in; it runs on every line just before the timestamp is added and the line rendered.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO
from urllib.parse import unquote, urlsplit

import structlog
from structlog.typing import Processor

from bot.settings import Settings
from core.guards.redact import SecretRedactor

_HANDLER_MARK = "_fuzi_handler"

# Held at WARNING or above: httpx logs request URLs at INFO (Telegram's Bot API puts the bot token in
# the URL); openai logs request bodies (what users wrote) at DEBUG; the rest is transport chatter.
QUIET_LOGGERS = (
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "hpack",
    "openai",
    "aiohttp.access",
    "websockets",
    "discord.gateway",
)


def configure_logging(
    env: str = "development",
    level: str = "INFO",
    *,
    extra_processors: Sequence[Processor] = (),
    stream: IO[str] | None = None,
) -> None:
    """Configure structlog and the stdlib root logger. Calling it again replaces the previous set-up.

    Args:
        env: "production" renders JSON lines; anything else a console renderer.
        level: minimum level (DEBUG, INFO, WARNING, ERROR).
        extra_processors: run on every event dict before rendering (e.g. secret redaction).
        stream: where lines go; stderr by default.
    """
    production = env.lower() == "production"
    shared = _shared_processors(extra_processors)
    structlog.configure(
        processors=[structlog.stdlib.filter_by_level, *shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *_renderers(production)],
        )
    )
    setattr(handler, _HANDLER_MARK, True)
    _install(handler, level.upper())


def _shared_processors(extra: Sequence[Processor]) -> list[Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.add_log_level,
        structlog.stdlib.PositionalArgumentsFormatter(),
        structlog.processors.StackInfoRenderer(),
        structlog.processors.format_exc_info,  # tracebacks become text before redaction sees them
        *extra,
        # after redaction: our own clock holds no secret, and a value new on every line would miss
        # the redactor's cache of short strings (each line ran every pattern over it)
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def _renderers(production: bool) -> list[Processor]:
    if production:
        return [structlog.processors.JSONRenderer(ensure_ascii=False)]
    return [structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())]


def _install(handler: logging.Handler, level: str) -> None:
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _HANDLER_MARK, False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLevelName(level)))


def reset_logging() -> None:
    """Remove Fuzi's handler and restore structlog's defaults (tests, embedding)."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _HANDLER_MARK, False)]:
        root.removeHandler(old)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET)
    structlog.reset_defaults()


def secret_redactor(settings: Settings) -> SecretRedactor:
    """A log processor that knows every configured secret (plus the generic token patterns)."""
    secrets = [
        settings.llm.api_key,
        settings.telegram.bot_token,
        settings.discord.bot_token,
        settings.web_search.tavily_api_key,
        settings.web.jwt_secret,
        settings.telegram.webhook_secret,
    ]
    passwords = [url_password(url) for url in (settings.database_url, settings.redis.url)]
    return SecretRedactor([*(s.get_secret_value() for s in secrets if s is not None), *passwords])


def url_password(url: str | None) -> str | None:
    """The password in a database or Redis URL (percent-decoded), or None."""
    try:
        password = urlsplit(url).password if url else None
    except ValueError:  # not a URL: nothing to find
        return None
    return unquote(password) if password else None


def setup_logging(settings: Settings, *, log_file: Path | None = None) -> None:
    """structlog with secret redaction; to `log_file` (the terminal chat keeps its screen clean) or stderr."""
    stream = None
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        stream = open(log_file, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - lives as long as the process
    configure_logging(settings.env, settings.log_level, extra_processors=[secret_redactor(settings)], stream=stream)
