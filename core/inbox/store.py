"""What the inbox keeps and the port it keeps it behind; the in-process store.

An entry is one platform update (``platform`` + ``key``, the platform's own id of the update, unique):
its raw payload as the platform sent it, who is handling it (``owner``, renewed by heartbeats) and
its status. The SQL store (core/storage/inbox.py) is the durable one every process shares;
:class:`MemoryInboxStore` keeps entries in this process only — duplicates are still dropped, but
nothing outlives the process (adapters built without a database, as in the adapter tests).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, Protocol

EntryStatus = Literal["pending", "done", "lost", "failed"]
"""pending: taken, not yet answered; done: its handling ended; lost: too old when a live process
found it, the person was told; failed: its handling failed in too many processes (a poison update)."""


@dataclass(frozen=True)
class InboxEntry:
    """One update as the inbox keeps it.

    Attributes:
        platform: "telegram", "discord" …
        key: the platform's id of the update (Telegram ``update_id``, a Discord message or interaction id).
        payload: the update as the platform sent it (JSON-safe), enough to handle it again elsewhere.
        owner: the process handling it (`Inbox.owner`).
        received_at: when Fuzi first took it.
        heartbeat_at: when its owner last said it is still at it.
        attempts: how many processes have claimed it after its owner went silent.
    """

    platform: str
    key: str
    payload: dict[str, Any]
    owner: str
    received_at: datetime
    heartbeat_at: datetime
    attempts: int = 0


class InboxStore(Protocol):
    """Where entries are kept. Every method is one atomic step, safe with several processes."""

    async def put(self, entry: InboxEntry) -> bool:
        """Keep ``entry``; False (and nothing changed) when its platform and key are kept already."""
        ...

    async def finish(self, platform: str, key: str, status: EntryStatus, at: datetime) -> None:
        """Close an entry (done, lost or failed)."""
        ...

    async def heartbeat(self, owner: str, at: datetime) -> None:
        """Renew every pending entry of ``owner``."""
        ...

    async def stale(
        self, platforms: Collection[str], silent_since: datetime, limit: int, *, not_owner: str
    ) -> list[InboxEntry]:
        """Pending entries of ``platforms`` whose owner (never ``not_owner``) has said nothing since
        ``silent_since``, oldest first."""
        ...

    async def claim(self, entry: InboxEntry, owner: str, at: datetime) -> bool:
        """Take ``entry`` over for ``owner`` if it is still as read (exactly one claimer wins)."""
        ...

    async def purge(self, closed_before: datetime) -> int:
        """Delete entries closed before ``closed_before``; returns how many."""
        ...


@dataclass
class _Kept:
    entry: InboxEntry
    status: EntryStatus = "pending"
    closed_at: datetime | None = None


class MemoryInboxStore:
    """:class:`InboxStore` in this process's memory (module docstring)."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], _Kept] = {}

    async def put(self, entry: InboxEntry) -> bool:
        if (entry.platform, entry.key) in self._kept:
            return False
        self._kept[entry.platform, entry.key] = _Kept(entry)
        return True

    async def finish(self, platform: str, key: str, status: EntryStatus, at: datetime) -> None:
        kept = self._kept.get((platform, key))
        if kept is not None and kept.status == "pending":
            kept.status, kept.closed_at = status, at

    async def heartbeat(self, owner: str, at: datetime) -> None:
        for kept in self._pending():
            if kept.entry.owner == owner:
                kept.entry = replace(kept.entry, heartbeat_at=at)

    async def stale(
        self, platforms: Collection[str], silent_since: datetime, limit: int, *, not_owner: str
    ) -> list[InboxEntry]:
        found = [
            k.entry
            for k in self._pending()
            if k.entry.platform in platforms and k.entry.heartbeat_at < silent_since and k.entry.owner != not_owner
        ]
        return sorted(found, key=lambda e: e.received_at)[:limit]

    async def claim(self, entry: InboxEntry, owner: str, at: datetime) -> bool:
        kept = self._kept.get((entry.platform, entry.key))
        if kept is None or kept.status != "pending" or kept.entry != entry:
            return False
        kept.entry = replace(entry, owner=owner, heartbeat_at=at, attempts=entry.attempts + 1)
        return True

    async def purge(self, closed_before: datetime) -> int:
        old = [k for k, kept in self._kept.items() if kept.closed_at is not None and kept.closed_at < closed_before]
        for k in old:
            del self._kept[k]
        return len(old)

    def _pending(self) -> list[_Kept]:
        return [k for k in self._kept.values() if k.status == "pending"]
