"""Who is calling: HS256 JWTs (`sub` is the web person), or the one local person on loopback.

A token made with ``fuzi token create --admin`` carries ``"role": "operator"``: its person may use
the operator console (``/v1/admin/…``, ``/admin``). The local person is the operator.

A token lives at most ``max_ttl_s`` (FUZI_WEB_TOKEN_MAX_TTL, 30 d): longer ones are neither issued nor
accepted. ``fuzi token revoke --user NAME`` stores a moment; a token of that person issued before it
is refused by every process (each keeps the answer for REVOCATION_CACHE_S, so a revocation takes
effect everywhere within that time).
"""

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
DEFAULT_MAX_TTL_S = 30 * 86400
REVOCATION_CACHE_S = 2.0
"""How long one process trusts its last look at a person's revocation row."""


class Unauthorized(Exception):
    """The request carries no usable credentials; the message is safe to show (no token in it)."""


class Authenticator(Protocol):
    """Turns an ``Authorization`` header value (or None) into a user id, or raises Unauthorized."""

    def user_for(self, authorization: str | None) -> str:
        """Signature, lifetime and subject only (no revocation look-up)."""
        ...

    async def authenticate(self, authorization: str | None) -> str:
        """Everything, revocations included: what each request goes through."""
        ...

    async def operator(self, authorization: str | None) -> tuple[str, bool]:
        """As `authenticate`, with whether the caller has the operator role."""
        ...


OPERATOR = "operator"
"""The ``role`` claim of an operator's token (`fuzi token create --admin`)."""


class Revocations(Protocol):
    """Where `fuzi token revoke` writes (core.storage.chatlog.TokenRevocations)."""

    async def revoked_at(self, user: str) -> float | None:
        """POSIX time before which the person's tokens are void, or None."""
        ...


class RevocationCache:
    """Revocation rows read through a short cache (REVOCATION_CACHE_S), so not every request asks SQL.

    Args:
        source: the revocation rows.
        ttl_s: how long one answer is kept.
        clock: monotonic clock (tests).
    """

    def __init__(self, source: Revocations, ttl_s: float = REVOCATION_CACHE_S, clock=time.monotonic):
        self._source, self._ttl_s, self._clock = source, ttl_s, clock
        self._seen: dict[str, tuple[float, float | None]] = {}

    async def revoked_at(self, user: str) -> float | None:
        now = self._clock()
        cached = self._seen.get(user)
        if cached is not None and now - cached[0] < self._ttl_s:
            return cached[1]
        moment = await self._source.revoked_at(user)
        if len(self._seen) > 10_000:
            self._seen.clear()
        self._seen[user] = (now, moment)
        return moment


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
        max_ttl_s: the longest lifetime (``exp - iat``) issued or accepted.
        revocations: revocation rows (None: nothing is ever revoked, e.g. `fuzi token create`).
    """

    secret: str
    leeway_s: float = 10.0
    max_ttl_s: int = DEFAULT_MAX_TTL_S
    revocations: Revocations | None = None

    def issue(self, user: str, ttl_s: int, *, now: float | None = None, operator: bool = False) -> str:
        """A token for ``user`` valid ``ttl_s`` seconds; ValueError beyond ``max_ttl_s``.

        ``iat`` has milliseconds, so a token made right after a revocation is not taken for an old one.
        ``operator``: the token carries the operator role (revoked with the person's other tokens).
        """
        if not valid_user(user):
            raise ValueError("user names are 1-64 of letters, digits and _ . @ -")
        if ttl_s > self.max_ttl_s:
            raise ValueError(f"at most {self.max_ttl_s // 86400} d ({self.max_ttl_s} s; FUZI_WEB_TOKEN_MAX_TTL)")
        issued = round(now if now is not None else time.time(), 3)
        claims: dict[str, object] = {"sub": user, "iat": issued, "exp": int(issued) + ttl_s}
        if operator:
            claims["role"] = OPERATOR
        return jwt.encode(claims, self.secret, algorithm=ALGORITHM)

    async def authenticate(self, authorization: str | None) -> str:
        return (await self.operator(authorization))[0]

    async def operator(self, authorization: str | None) -> tuple[str, bool]:
        user, issued, role = self._claims(authorization)
        revoked = await self.revocations.revoked_at(user) if self.revocations is not None else None
        if revoked is not None and issued < revoked:
            raise Unauthorized("token revoked")
        return user, role == OPERATOR

    def user_for(self, authorization: str | None) -> str:
        return self._claims(authorization)[0]

    def _claims(self, authorization: str | None) -> tuple[str, float, object]:
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("missing bearer token")
        try:
            claims = jwt.decode(
                token.strip(),
                self.secret,
                algorithms=[ALGORITHM],
                leeway=self.leeway_s,
                options={"require": ["sub", "exp", "iat"]},
            )
        except jwt.ExpiredSignatureError:
            raise Unauthorized("token expired") from None
        except jwt.InvalidTokenError:
            raise Unauthorized("invalid token") from None
        user, issued = claims.get("sub"), claims["iat"]
        if not isinstance(user, str) or not valid_user(user):
            raise Unauthorized("invalid token subject")
        if not isinstance(issued, int | float) or claims["exp"] - issued > self.max_ttl_s + self.leeway_s:
            raise Unauthorized("token lifetime over the limit")
        return user, float(issued), claims.get("role")


@dataclass(frozen=True)
class LocalAuth:
    """Loopback without a secret: every request is the one local person."""

    user: str = "local"

    def user_for(self, authorization: str | None) -> str:
        return self.user

    async def authenticate(self, authorization: str | None) -> str:
        return self.user

    async def operator(self, authorization: str | None) -> tuple[str, bool]:
        return self.user, True  # loopback only: whoever runs the machine runs Fuzi
