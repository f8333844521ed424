"""A structlog processor that removes bot tokens and API keys from every log line.

Place `SecretRedactor` in the processor chain just before the renderer (JSON or console). It
formats a pending ``exc_info`` itself (so the traceback text is redacted too), then walks every
value of the event dict: strings, nested dicts/lists/tuples, exceptions and any other object whose
``str()`` contains a secret (URLs, request objects …).
"""

from __future__ import annotations

import functools
import re
import traceback
from collections.abc import Iterable, MutableMapping
from typing import Any
from urllib.parse import quote

MASK = "[REDACTED]"
MIN_SECRET_CHARS = 6
CACHED_CHARS, CACHE_SIZE = 200, 4096
"""Short values (event names, ids, chat keys, levels) recur on line after line: their redaction is
remembered, as the patterns run over every string value of every log line."""

# Names a secret goes by in query strings, assignments and JSON/dict fields. The first group may
# carry a prefix (``refresh_token``, ``client_secret``, ``x-api-key``); the second stands alone.
_SECRET_NAME = (
    r"(?:(?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|apikey|access[_-]?token|token|secret|password|passwd)"
    r"|key|sig|signature|auth)"
)
# A value that looks like a credential rather than a word: a long opaque run without spaces that
# holds a digit (16+ characters), or any such run of 32+ characters.
_OPAQUE = r"(?:(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{16,}|[A-Za-z0-9._~+/=-]{32,})(?![A-Za-z0-9._~+/=-])"

# (pattern, replacement); replacements keep harmless context such as the "bot" URL prefix.
DEFAULT_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Telegram bot token, also inside https://api.telegram.org/bot<token>/method
    (re.compile(r"(?<![A-Za-z0-9_-])\d{5,}:[A-Za-z0-9_-]{30,}(?![A-Za-z0-9_-])"), MASK),
    (re.compile(r"(/bot)[^/\s?#\"']+"), rf"\1{MASK}"),
    # OpenAI-style keys (sk-…, sk-proj-…), also DeepSeek
    (re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}"), MASK),
    # Discord bot token: base64 user id . timestamp . hmac
    (re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}"), MASK),
    # Authorization headers: "Bearer …", "Bot …", "Basic …", or a bare opaque credential
    (
        re.compile(
            r"(?i)\b(authorization[\"']?\s*[:=]\s*[\"']?)"
            r"(?:(?:bearer|bot|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}|" + _OPAQUE + r")"
        ),
        rf"\1{MASK}",
    ),
    (re.compile(r"(?i)\b(bearer|bot)\s+[A-Za-z0-9._~+/=-]{20,}"), rf"\1 {MASK}"),
    # JSON / dict fields named like secrets: "api_key": "…", 'token': '…'
    (
        re.compile(r"""(?i)(["']""" + _SECRET_NAME + r"""["']\s*:\s*["'])[^"'\n]{6,}"""),
        rf"\1{MASK}",
    ),
    # assignments and query parameters: api_key=…, &token=…, password = '…'
    (
        re.compile(r"""(?i)(?<![A-Za-z0-9_-])(""" + _SECRET_NAME + r"""\s*=\s*["']?)[^&\s#"',;]{6,}"""),
        rf"\1{MASK}",
    ),
    # the password of a URL, whatever its length: postgresql://user:pw@host, redis://:pw@host
    (re.compile(r"(?<=://)([^:/@\s]*):[^@/\s]+@"), rf"\1:{MASK}@"),
    # "token: <value>" in free text only when the value looks like a credential, so that
    # "first token: connection error" stays readable
    (
        re.compile(r"""(?i)(?<![A-Za-z0-9_-])(""" + _SECRET_NAME + r"""["']?\s*:\s*["']?)""" + _OPAQUE),
        rf"\1{MASK}",
    ),
)


class SecretRedactor:
    """structlog processor: replaces known secrets and secret-shaped strings with ``[REDACTED]``.

    Args:
        secrets: exact secrets to remove (bot tokens, API keys, passwords from settings); values
            shorter than MIN_SECRET_CHARS are ignored, as they would mask ordinary words (a URL's
            password is masked by its place in the URL whatever its length).
        patterns: (regex, replacement) pairs for secret shapes; defaults cover Telegram and
            Discord bot tokens, ``sk-`` keys, Authorization headers, ``key=`` assignments and query
            parameters, JSON/dict fields named like secrets, and ``token: <opaque value>`` text.
    """

    def __init__(
        self,
        secrets: Iterable[str | None] = (),
        patterns: tuple[tuple[re.Pattern[str], str], ...] = DEFAULT_PATTERNS,
    ) -> None:
        self._secrets: list[str] = []
        self._patterns = patterns
        self._short = functools.lru_cache(maxsize=CACHE_SIZE)(self._redact)
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret: str | None) -> None:
        """Register one more exact secret (also matched URL-encoded)."""
        if not secret or len(secret) < MIN_SECRET_CHARS:
            return
        for form in {secret, quote(secret, safe="")}:
            if form not in self._secrets:
                self._secrets.append(form)
        self._secrets.sort(key=len, reverse=True)
        self._short.cache_clear()

    def redact(self, text: str) -> str:
        """Return `text` with every secret masked."""
        return self._short(text) if len(text) <= CACHED_CHARS else self._redact(text)

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        for pattern, repl in self._patterns:
            text = pattern.sub(repl, text)
        return text

    def __call__(self, logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> dict[str, Any]:
        """The structlog processor entry point."""
        exc_info = event_dict.pop("exc_info", None)
        if exc_info:
            event_dict["exception"] = _format_exc(exc_info)
        return {key: self._clean(value, 0) for key, value in event_dict.items()}

    def _clean(self, value: Any, depth: int) -> Any:
        if isinstance(value, str):
            return self.redact(value)
        if value is None or isinstance(value, (bool, int, float)) or depth > 8:
            return value
        if isinstance(value, dict):
            return {k: self._clean(v, depth + 1) for k, v in value.items()}
        if isinstance(value, (list, tuple, set, frozenset)):
            items = [self._clean(v, depth + 1) for v in value]
            if isinstance(value, list):
                return items
            return tuple(items) if isinstance(value, tuple) else frozenset(items)
        if isinstance(value, BaseException):
            return f"{type(value).__name__}: {self.redact(str(value))}"
        text = str(value)
        cleaned = self.redact(text)
        return value if cleaned == text else cleaned


def _format_exc(exc_info: Any) -> str:
    """Format `exc_info` (True, an exception or a sys.exc_info() tuple) as traceback text."""
    if exc_info is True:
        import sys

        exc_info = sys.exc_info()
    if isinstance(exc_info, BaseException):
        exc_info = (type(exc_info), exc_info, exc_info.__traceback__)
    if not isinstance(exc_info, tuple) or exc_info[0] is None:
        return ""
    return "".join(traceback.format_exception(*exc_info))
