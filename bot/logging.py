"""Logging set-up for every entry point: one stream (stderr or a file), structlog's processors on every line.

Production (`FUZI_ENV=production`) writes one JSON object per line; development a readable console.
Fuzi's own lines (structlog) are rendered by structlog and written straight to the stream; library
loggers (openai, httpx, aiohttp, telegram, discord) log through the stdlib handler, whose formatter
runs the same processors, so their lines carry the bound trace id too. Both write under the
handler's lock, a line at a time. `extra_processors` is where the guards' secret-redaction
processor plugs in; it runs on every line just before the timestamp is added and the line rendered.

Fuzi's lines skip the stdlib round trip (a `LogRecord` made, copied by the formatter, the caller's
frame looked up): about a third of a line's CPU, ~10 lines an answer (docs/performance.md). They are
still level-filtered by the first processor against the stdlib logger of their name, as before, so
`structlog.testing.capture_logs` (which replaces the processors) sees every level.
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
    shared, renderers = _shared_processors(extra_processors), _renderers(production)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *renderers],
        )
    )
    setattr(handler, _HANDLER_MARK, True)
    structlog.configure(
        processors=[structlog.stdlib.filter_by_level, *shared, *renderers],
        logger_factory=_LineWriterFactory(handler),
        wrapper_class=structlog.make_filtering_bound_logger(logging.NOTSET),
        # not cached: a later configure_logging (tests, `fuzi chat --log-file`) reaches every module's logger
        cache_logger_on_first_use=False,
    )
    _install(handler, level.upper())


class _LineWriter:
    """Where structlog hands a rendered line: the handler's stream, one write and a flush under the
    handler's lock (as `logging.StreamHandler.emit`), so lines of both paths never interleave.

    `name` is the module's logger name (`structlog.get_logger(__name__)`), for `add_logger_name`; its
    level is the stdlib logger's of that name (`filter_by_level` asks). A stream that fails (closed,
    broken pipe) loses the line; logging never raises into the caller.
    """

    disabled = False

    def __init__(self, handler: logging.StreamHandler, name: str):
        self._handler, self.name = handler, name
        self._std = logging.getLogger(name or None)

    def getEffectiveLevel(self) -> int:  # noqa: N802 - the stdlib name filter_by_level calls
        return self._std.getEffectiveLevel()

    def msg(self, line: str) -> None:
        handler = self._handler
        handler.acquire()
        try:
            handler.stream.write(line + "\n")
            handler.stream.flush()
        except (OSError, ValueError):
            pass
        finally:
            handler.release()

    debug = info = warning = error = critical = exception = log = msg


class _LineWriterFactory:
    """structlog's logger factory for `_LineWriter`s over one handler."""

    def __init__(self, handler: logging.StreamHandler):
        self._handler = handler
        self._writers: dict[str, _LineWriter] = {}

    def __call__(self, *args: object) -> _LineWriter:
        name = str(args[0]) if args else ""
        writer = self._writers.get(name)
        if writer is None:
            writer = self._writers[name] = _LineWriter(self._handler, name)
        return writer


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
