"""Point discord.py at other endpoints (a local fake in tests, a proxy in production).

discord.py builds every REST URL, webhook and interaction calls included, from the class attribute
``discord.http.Route.BASE``, and opens the gateway at ``DiscordWebSocket.DEFAULT_GATEWAY`` (READY then
hands it ``resume_gateway_url`` for resumes; an invalidated session falls back to the default). Both
are process-wide, so :func:`discord_endpoints` sets them only while a client runs and restores them
after.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import INTERNAL_API_VERSION, Route

_VERSIONED = re.compile(r"/v\d+/?$")


def api_base(url: str) -> str:
    """REST base with the API version: ``http://host/api`` → ``http://host/api/v10``."""
    url = url.rstrip("/")
    return url if _VERSIONED.search(url) else f"{url}/v{INTERNAL_API_VERSION}"


@contextmanager
def discord_endpoints(api_base_url: str | None, gateway_url: str | None) -> Iterator[None]:
    """Use these endpoints (None keeps Discord's) for the duration of the block."""
    saved = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    try:
        if api_base_url:
            Route.BASE = api_base(api_base_url)
        if gateway_url:
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
        yield
    finally:
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = saved
