"""What every part shared through Redis does when Redis does not answer: say so once, carry on.

The parts N processes share (limits, the reply lease, update ids seen, the send pace, the per-chat
budgets, the breaker's state) each fail open in their own way: a request is admitted, an id counts
as new, a process paces itself, the breaker falls back to its own memory. What they share is how
that is reported, and it lives here: the first failure is one error line ``<part>_redis_down`` (with
the exception's type and the policy), the first answer after it one info line
``<part>_redis_recovered``; the failures in between are silent, so an outage is two lines, not one
per message.
"""

from __future__ import annotations

import structlog

log = structlog.get_logger(__name__)


class FailOpen:
    """The up/down state of one shared part, logged on each change only.

    Args:
        part: the part's name in the log events (``seen`` gives ``seen_redis_down``).
        policy: what the part does while Redis is down (logged with the first failure).

    Example::

        try:
            new = await redis.set(key, 1, nx=True)
        except RedisError as exc:
            self._health.failed(exc)
            return True  # fail open
        self._health.answered()
    """

    def __init__(self, part: str, *, policy: str = "fail_open") -> None:
        self.part = part
        self.policy = policy
        self.down = False

    def failed(self, exc: BaseException, **fields: object) -> None:
        """Redis did not answer: logged when it is the first failure since the last answer."""
        if not self.down:
            log.error(f"{self.part}_redis_down", **fields, error=type(exc).__name__, policy=self.policy)
        self.down = True

    def answered(self) -> None:
        """Redis answered: logged when it was down."""
        if self.down:
            log.info(f"{self.part}_redis_recovered")
        self.down = False
