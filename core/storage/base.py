"""The base of every repository: an engine and a fresh session (or, for the statements every message
runs, a bare connection in one transaction) per call, off the event loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.pool import StaticPool
from sqlmodel import Session

T = TypeVar("T")


class _Repo:
    """Base: owns the engine and runs a function with a fresh session off the event loop.

    Args:
        engine: the SQLAlchemy engine.
        lock: serialises sessions; needed when every thread shares one connection (in-memory
            SQLite, StaticPool). None picks that automatically.
    """

    def __init__(self, engine: Engine, lock: threading.Lock | None = None):
        self._engine = engine
        self._lock = lock or (threading.Lock() if shares_one_connection(engine) else nullcontext())

    async def _run(self, fn: Callable[[Session], T]) -> T:
        return await asyncio.to_thread(self._in_session, fn)

    def _in_session(self, fn: Callable[[Session], T]) -> T:
        with self._lock, Session(self._engine, expire_on_commit=False) as session:
            return fn(session)

    async def _run_core(self, fn: Callable[[Connection], T]) -> T:
        """`fn` on a connection in one transaction (committed when it returns, rolled back when it
        raises), off the event loop: for prepared Core statements, with no ORM session around them."""
        return await asyncio.to_thread(self._in_transaction, fn)

    def _in_transaction(self, fn: Callable[[Connection], T]) -> T:
        with self._lock, self._engine.begin() as connection:
            return fn(connection)


def shares_one_connection(engine: Engine) -> bool:
    """True when the engine hands every thread the same connection (in-memory SQLite)."""
    return isinstance(engine.pool, StaticPool)


UPSERT_DIALECTS = ("sqlite", "postgresql")  # the dialects with INSERT … ON CONFLICT


def conflict_insert(dialect: str) -> Any:
    """The `insert` with ON CONFLICT of PostgreSQL for "postgresql", else SQLite's. The PostgreSQL
    dialect's module is imported only where it is used (~20 ms of a start on SQLite)."""
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert
    from sqlalchemy.dialects import sqlite

    return sqlite.insert
