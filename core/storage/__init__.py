"""Storage: SQLModel tables, their migrations and small async repositories (SQL runs in worker threads)."""

from core.storage.db import PoolConfig, create_database_engine, create_engine_and_tables, open_database
from core.storage.models import Account, Chat, Message, Person
from core.storage.repos import ChatRepo, IdentityRepo, MessageRepo, Storage

__all__ = [
    "Account",
    "Chat",
    "ChatRepo",
    "IdentityRepo",
    "Message",
    "MessageRepo",
    "Person",
    "PoolConfig",
    "Storage",
    "create_database_engine",
    "create_engine_and_tables",
    "open_database",
]
