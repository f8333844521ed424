"""Connecting to a platform at start: a rejected token is one clear line, an outage is waited out.

A platform that refuses the bot's token will refuse it again: :class:`PlatformRejected` carries a
one-line message naming the setting — never the token (PTB's ``InvalidToken`` message quotes it, so
its text is never shown or logged) — and the CLI prints it and exits. A platform that cannot be
reached (network down, 5xx) is retried with exponential backoff and jitter for as long as it takes;
the process stays up and logs one warning per try.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

import structlog

log = structlog.get_logger(__name__)

T = TypeVar("T")


class PlatformStatus:
    """Each platform's connection state for readiness checks: "connecting", "unreachable" or "ok"."""

    def __init__(self) -> None:
        self.states: dict[str, str] = {}

    def set(self, platform: str, state: str) -> None:
        self.states[platform] = state


class PlatformRejected(Exception):
    """The platform refused the bot's credentials; the message is safe to print (no token)."""


async def connect_with_backoff(
    connect: Callable[[], Awaitable[T]],
    *,
    platform: str,
    transient: tuple[type[BaseException], ...],
    first_s: float = 1.0,
    max_s: float = 60.0,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rng: random.Random | None = None,
    status: PlatformStatus | None = None,
) -> T:
    """Call ``connect`` until it succeeds, waiting ``first_s``, doubling to ``max_s``, on ``transient`` errors.

    Anything else (a :class:`PlatformRejected`, a bug) is raised at once. ``status`` (for /readyz)
    says "connecting", then "unreachable" while retrying, "ok" once connected.
    """
    rng = rng or random.Random()
    status = status or PlatformStatus()
    wait, attempt = first_s, 0
    status.set(platform, "connecting")
    while True:
        attempt += 1
        try:
            result = await connect()
            status.set(platform, "ok")
            return result
        except transient as exc:
            status.set(platform, "unreachable")
            delay = wait * rng.uniform(0.8, 1.2)
            log.warning(
                "platform_unreachable",
                platform=platform,
                attempt=attempt,
                error=type(exc).__name__,
                retry_in_s=round(delay, 1),
            )
            await sleep(delay)
            wait = min(wait * 2, max_s)
