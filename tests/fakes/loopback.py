"""An aiohttp app served on 127.0.0.1 at a port the OS picks: the start-up the fake servers share.

The socket is bound before the site starts, so the port is known and nobody can take it in between
(asking for a free port and binding it later races with the other tests on the machine).
"""

from __future__ import annotations

import socket

from aiohttp import web


class LoopbackServer:
    """``port = await server.start()`` … ``await server.stop()``; no access log, a short shutdown."""

    def __init__(self, app: web.Application) -> None:
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        self.port = 0

    async def start(self) -> int:
        await self._runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        return self.port

    async def stop(self) -> None:
        await self._runner.cleanup()
