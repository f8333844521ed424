"""Who is calling: HS256 JWTs (`sub` is the web person), or the one local person on loopback."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Protocol

import jwt

ALGORITHM = "HS256"
_USER = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
_TTL = re.compile(r"^(\d+)\s*([smhdw]?)$")
_UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class Unauthorized(Exception):
    """The request carries no usable credentials; the message is safe to show (no token in it)."""


class Authenticator(Protocol):
    """Turns an ``Authorization`` header value (or None) into a user id, or raises Unauthorized."""

    def user_for(self, authorization: str | None) -> str: ...


def valid_user(name: str) -> bool:
    """A web user name: 1-64 of letters, digits and ``_ . @ -``."""
    return bool(_USER.match(name))


def parse_ttl(text: str) -> int:
    """Seconds in ``30m``, ``12h``, ``7d``, ``2w`` or a bare number of seconds; ValueError otherwise."""
    match = _TTL.match(text.strip().lower())
    if not match or int(match.group(1)) <= 0:
        raise ValueError(f"bad lifetime {text!r}: use e.g. 30m, 12h, 7d")
    return int(match.group(1)) * _UNIT_S[match.group(2)]


@dataclass(frozen=True)
class JwtAuth:
    """HS256 tokens signed with one shared secret.

    Args:
        secret: the signing key (FUZI_WEB_JWT_SECRET).
        leeway_s: clock skew tolerated on ``exp``/``iat``.
    """

    secret: str
    leeway_s: float = 10.0

    def issue(self, user: str, ttl_s: int, *, now: float | None = None) -> str:
        """A token for ``user`` valid ``ttl_s`` seconds."""
        if not valid_user(user):
            raise ValueError("user names are 1-64 of letters, digits and _ . @ -")
        issued = int(now if now is not None else time.time())
        return jwt.encode({"sub": user, "iat": issued, "exp": issued + ttl_s}, self.secret, algorithm=ALGORITHM)

    def user_for(self, authorization: str | None) -> str:
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("missing bearer token")
        try:
            claims = jwt.decode(
                token.strip(),
                self.secret,
                algorithms=[ALGORITHM],
                leeway=self.leeway_s,
                options={"require": ["sub", "exp"]},
            )
        except jwt.ExpiredSignatureError:
            raise Unauthorized("token expired") from None
        except jwt.InvalidTokenError:
            raise Unauthorized("invalid token") from None
        user = claims.get("sub")
        if not isinstance(user, str) or not valid_user(user):
            raise Unauthorized("invalid token subject")
        return user


@dataclass(frozen=True)
class LocalAuth:
    """Loopback without a secret: every request is the one local person."""

    user: str = "local"

    def user_for(self, authorization: str | None) -> str:
        return self.user
