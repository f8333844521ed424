"""The inbox: every platform update Fuzi takes is written down before the platform is told "received",
and marked done when its reply ends, so a process that dies never loses an acknowledged update
(docs/deploy.md, "What a crash can lose")."""

from core.inbox.inbox import Inbox, InboxHandlers
from core.inbox.store import InboxEntry, InboxStore, MemoryInboxStore

__all__ = ["Inbox", "InboxEntry", "InboxHandlers", "InboxStore", "MemoryInboxStore"]
