"""Who gets a reply now: one reply in flight per person, then the sender's limits.

`RunningReplies` is the only owner of the one-reply-in-flight rule (and of /cancel's handle on the
running reply); the guard's limits (`Guard.admit`) only count requests. `Admission.admit` is the one
gate a message passes before the engine stores it as answered and starts the reply:

    async with admission.admit(turn):      # raises NotAdmitted (busy or limited)
        ... produce the reply ...          # the person's slot is freed on exit, however it ends
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import structlog

from core.language.text import reply_language
from core.ports import Guard, Turn
from core.storage.status import MessageStatus
from core.texts import say

log = structlog.get_logger(__name__)


@dataclass
class NotAdmitted(Exception):
    """The turn gets no reply now.

    Attributes:
        reason: the Notice reason, also the stored status of the user's message.
        text: what the user is told.
        extra: machine-readable details (which limit, seconds to wait).
    """

    reason: Literal["busy", "rate_limited"]
    text: str
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.reason)

    @property
    def status(self) -> MessageStatus:
        """The stored status of the user's message: the same word as the reason."""
        return self.reason


class Busy(Exception):
    """The person already has a reply in flight."""


class RunningReplies:
    """The reply running for each person (at most one), so /cancel can stop it.

    Single-process: a dict on the event loop. A shared implementation (many processes) keeps the
    same interface with an expiring, renewed lease per person.
    """

    def __init__(self) -> None:
        self._tasks: dict[int, asyncio.Task | None] = {}

    @asynccontextmanager
    async def hold(self, person_id: int) -> AsyncIterator[None]:
        """Hold the person's slot for the body; raises Busy when a reply for them is already running."""
        if person_id in self._tasks:
            raise Busy(person_id)
        self._tasks[person_id] = None
        try:
            yield
        finally:
            self._tasks.pop(person_id, None)

    def attach(self, person_id: int, task: asyncio.Task) -> None:
        """Record the task that produces the reply for a held slot (what /cancel cancels)."""
        if person_id in self._tasks:
            self._tasks[person_id] = task

    def is_running(self, person_id: int) -> bool:
        return person_id in self._tasks

    async def cancel(self, person_id: int) -> bool:
        """Cancel the person's running reply; False when none is running."""
        task = self._tasks.get(person_id)
        if task is None or task.done():
            return False
        task.cancel()
        log.info("reply_cancel_requested", person=person_id)
        return True


class Admission:
    """The gate before a reply: the person's in-flight slot, then the guard's limits.

    Args:
        running: the running replies (one per person).
        guard: counts the turn against the sender's limits (`Guard.admit`).
    """

    def __init__(self, running: RunningReplies, guard: Guard) -> None:
        self.running = running
        self._guard = guard

    async def charge(self, turn: Turn) -> None:
        """Count the turn against the sender's limits (also a refused message: it still costs).

        Raises:
            NotAdmitted: "rate_limited", with the limit's refusal (the one place it is built).
        """
        refusal = await self._guard.admit(turn)
        if refusal is not None:
            extra = {"limit": refusal.reason, "retry_after_s": refusal.retry_after_s}
            raise NotAdmitted("rate_limited", refusal.text, extra)

    @asynccontextmanager
    async def admit(self, turn: Turn) -> AsyncIterator[None]:
        """Hold the slot and pass the limits for the body; raises NotAdmitted when either says no.

        A busy person is not counted against the limits (the message gets no reply).
        """
        try:
            async with self.running.hold(turn.person_id):
                await self.charge(turn)
                yield
        except Busy:  # only `hold` raises it: the body never takes a slot
            raise NotAdmitted("busy", say("BUSY", reply_language(turn.incoming.text))) from None
