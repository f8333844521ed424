"""Storage: SQLModel tables and small async repositories (SQL runs in worker threads)."""

from core.storage.db import create_engine_and_tables
from core.storage.models import Account, Chat, Message, Person
from core.storage.repos import ChatRepo, IdentityRepo, MessageRepo, Storage

__all__ = [
    "Account", "Chat", "ChatRepo", "IdentityRepo", "Message", "MessageRepo", "Person", "Storage",
    "create_engine_and_tables",
]
