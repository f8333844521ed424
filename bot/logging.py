"""Logging set-up for every entry point: structlog over stdlib logging, one handler on stderr.

Production (`FUZI_ENV=production`) writes one JSON object per line; development a readable console.
Library loggers (openai, httpx, aiohttp, telegram, discord) go through the same processors, so
their lines carry the bound trace id too. `extra_processors` is where the guards' secret-redaction
processor plugs in; it runs on every line just before rendering.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import IO

import structlog
from structlog.typing import Processor

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
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
        structlog.processors.format_exc_info,  # tracebacks become text before redaction sees them
        *extra,
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
