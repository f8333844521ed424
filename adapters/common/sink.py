"""The platform side of one streamed reply (:class:`MessageSink`) and what streaming it cost.

:class:`adapters.common.stream.StreamingReply` drives a sink; each adapter writes one
(adapters/telegram/sink.py, adapters/discord/sink.py) and reads :class:`StreamStats` afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


class Withdrawn(Exception):
    """A queued preview request was withdrawn before it was sent (see ``MessageSink.withdraw``)."""


class MessageSink(Protocol):
    """One reply's messages on a platform. Raise :class:`RateLimited` on flood control.

    ``final=False`` calls carry a plain-text streaming preview; ``final=True`` calls carry one
    Markdown part of the final text, which the sink renders in the platform's format (falling back to
    plain text if the platform rejects the formatting). ``extra`` is a Notice's extra (e.g.
    ``{"choices": [...]}``), given with the last final part so the sink can add buttons.
    """

    async def typing(self) -> None:
        """Show "typing…" in the chat."""

    async def send(self, text: str, *, final: bool = False, extra: Mapping | None = None) -> Any:
        """Send a new message; return a handle for :meth:`edit`."""

    async def edit(self, handle: Any, text: str, *, final: bool = False, extra: Mapping | None = None) -> Any:
        """Replace the text of ``handle``; return the (possibly new) handle. "Not modified" is no error."""

    def fit_preview(self, text: str) -> str:
        """The streaming preview for ``text``: it if it fits in one message, else a truncation."""

    def split_final(self, text: str) -> list[str]:
        """The Markdown parts of the final text, each fitting one message after rendering."""

    # Optional: ``def withdraw(self) -> None`` drops preview requests still queued locally (not yet
    # sent); each raises :class:`Withdrawn`. Called when the final text is ready.


@dataclass
class StreamStats:
    """What one streamed reply cost and when the user saw it (clock times)."""

    sends: int = 0
    edits: int = 0
    typings: int = 0
    rate_limited: int = 0
    failures: int = 0
    started_at: float = 0.0
    first_visible_at: float | None = None
    final_at: float | None = None
    outcome: str = ""  # "final", "notice", "stopped", "error", "empty"
    final_text: str = ""
    delivered: bool = False  # every part of the final text went out
    final_retries: int = 0  # transient failures of final parts that were retried
    handles: list = field(default_factory=list)
