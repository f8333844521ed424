"""After SIGTERM a process is gone within SHUTDOWN_GRACE_S, whatever storage or a platform does.

`arm_watchdog` starts a daemon thread that ends the process if the clean stop hangs: a database
that does not answer, a worker thread stuck in a driver call (which also keeps `asyncio.run` from
returning, since it waits for the default executor's threads).
"""

from __future__ import annotations

import os
import sys
import threading

import structlog

SHUTDOWN_GRACE_S = 9.0
"""Under the 10 s a process manager usually waits before SIGKILL (Docker 10 s, Kubernetes and
Heroku 30 s)."""


def arm_watchdog(grace_s: float = SHUTDOWN_GRACE_S) -> threading.Timer:
    """End the process `grace_s` from now unless it exited by itself (call when a stop begins)."""
    watchdog = threading.Timer(grace_s, _force_exit, args=(grace_s,))
    watchdog.daemon = True
    watchdog.start()
    return watchdog


def _force_exit(grace_s: float) -> None:
    structlog.get_logger(__name__).error("shutdown_forced", after_s=grace_s)
    sys.stderr.flush()
    os._exit(1)
