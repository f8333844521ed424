"""Telegram Mini App sign-in: ``Authorization: tma <initData>``.

Telegram hands a Mini App its launch parameters as a query string (``initData``) signed by the bot:
``hash`` = HMAC-SHA256(key = HMAC-SHA256(key="WebAppData", msg=bot token), msg = data-check-string),
the data-check-string being every other ``key=value`` pair (values URL-decoded), sorted by key and
joined by newlines (core.telegram.org/bots/webapps, "Validating data received via the Mini App").
The check runs on the raw string as received; ``auth_date`` must be at most ``max_age_s`` old
(TMA_MAX_AGE_S, 24 h). The person is the Telegram user: the account ``telegram:<id>``, the same
person as in their Telegram chats.

Anything else is refused: forged or re-signed data, another bot's, a changed user, an old one (401);
an init data longer than MAX_INIT_DATA_CHARS (400). One log line per refusal, never the data itself.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl

TMA_MAX_AGE_S = 24 * 3600
"""How old (``auth_date``) an init data may be; a Mini App opened longer ago must be reopened."""
MAX_INIT_DATA_CHARS = 4096
"""Telegram's init data is well under 1 KiB; anything longer is refused unread (400)."""
FUTURE_SKEW_S = 300
"""An ``auth_date`` this far ahead of our clock is still believed (clock skew); further is forged."""
_HASH = re.compile(r"^[0-9a-f]{64}$")


class InitDataRefused(Exception):
    """The init data does not sign anyone in; ``status`` is 400 (too long) or 401, the message is safe to show."""

    def __init__(self, reason: str, status: int = 401):
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True)
class MiniAppUser:
    """Who opened the Mini App (from a checked init data)."""

    id: int
    name: str
    auth_date: int
    start_param: str | None = None


def secret_key(bot_token: str) -> bytes:
    """HMAC-SHA256(key="WebAppData", msg=bot token): the key init data hashes are made with."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def sign(fields: dict[str, str], bot_token: str) -> str:
    """The ``hash`` Telegram would put on these fields (tests and the example in docs/web.md)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    return hmac.new(secret_key(bot_token), check.encode(), hashlib.sha256).hexdigest()


def check_init_data(
    raw: str, bot_token: str, *, max_age_s: int = TMA_MAX_AGE_S, now: float | None = None
) -> MiniAppUser:
    """The user a raw init data signs in, or InitDataRefused."""
    if len(raw) > MAX_INIT_DATA_CHARS:
        raise InitDataRefused("init data too long", 400)
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True, errors="strict")
    except (ValueError, UnicodeDecodeError):
        raise InitDataRefused("malformed init data") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataRefused("malformed init data")
    given = fields.pop("hash", "")
    if not _HASH.match(given):
        raise InitDataRefused("init data without a hash")
    if not hmac.compare_digest(sign(fields, bot_token), given):
        raise InitDataRefused("init data not signed by this bot")
    auth_date = fields.get("auth_date", "")
    if not auth_date.isdigit() or len(auth_date) > 12:
        raise InitDataRefused("init data without auth_date")
    age = (time.time() if now is None else now) - int(auth_date)
    if age > max_age_s or age < -FUTURE_SKEW_S:
        raise InitDataRefused("init data expired; reopen the reading room")
    return MiniAppUser(
        id=_user_id(fields.get("user", "")),
        name=_name(fields),
        auth_date=int(auth_date),
        start_param=fields.get("start_param") or None,
    )


def _user_id(text: str) -> int:
    try:
        user = json.loads(text)
    except ValueError:
        user = None
    uid = user.get("id") if isinstance(user, dict) else None
    if not isinstance(uid, int) or isinstance(uid, bool) or not 0 < uid < 2**53:
        raise InitDataRefused("init data without a user")
    return uid


def _name(fields: dict[str, str]) -> str:
    try:
        user = json.loads(fields["user"])
        return " ".join(str(user.get(k, "")) for k in ("first_name", "last_name")).strip()[:256]
    except (ValueError, KeyError, AttributeError):
        return ""
