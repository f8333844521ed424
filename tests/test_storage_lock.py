"""A user's message survives another connection's exclusive SQLite lock that outlasts the busy
timeout: `MessageRepo.add` retries "database is locked" with a bounded backoff, then gives up with
`StorageBusyError`; other database errors are not retried."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sqlalchemy.exc import OperationalError
from structlog.testing import capture_logs

from core.storage.db import create_engine_and_tables
from core.storage.repos import LockRetry, MessageRepo, StorageBusyError, is_locked

BUSY_TIMEOUT_S = 0.05  # SQLite's own wait per statement, far shorter than the lock below


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "fuzi.sqlite3"
    engine = create_engine_and_tables(f"sqlite:///{path}", busy_timeout_s=BUSY_TIMEOUT_S)
    yield path, engine
    engine.dispose()


class ExclusiveLock:
    """A second, plain sqlite3 connection holding BEGIN EXCLUSIVE until `release()`."""

    def __init__(self, path):
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._conn.execute("BEGIN EXCLUSIVE")
        self.released = threading.Event()

    def release(self) -> None:
        self._conn.execute("COMMIT")
        self._conn.close()
        self.released.set()


def stored_texts(path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute("SELECT text FROM message ORDER BY id")]


async def test_message_is_stored_when_the_lock_outlasts_the_busy_timeout(db):
    path, engine = db
    repo = MessageRepo(engine, lock_retry=LockRetry(10, wait_initial_s=0.05, wait_max_s=0.2))
    lock = ExclusiveLock(path)
    timer = threading.Timer(0.4, lock.release)  # released from another thread, well after 0.05 s
    timer.start()
    try:
        with capture_logs() as logs:
            message_id = await repo.add("telegram:1", "user", "学而时习之", trace_id="t-1")
    finally:
        timer.join()
    assert lock.released.is_set() and message_id >= 1
    assert stored_texts(path) == ["学而时习之"]
    retries = [e for e in logs if e["event"] == "storage_locked_retry"]
    assert retries and retries[0]["trace"] == "t-1" and "学而" not in str(logs)  # ids, never the text


async def test_a_lock_beyond_the_bound_raises_storage_busy_and_writes_nothing(db):
    path, engine = db
    repo = MessageRepo(engine, lock_retry=LockRetry(3, wait_initial_s=0.01, wait_max_s=0.02))
    lock = ExclusiveLock(path)
    try:
        with capture_logs() as logs, pytest.raises(StorageBusyError) as info:
            await repo.add("telegram:1", "user", "hello", trace_id="t-2")
    finally:
        lock.release()
    assert is_locked(info.value.__cause__)
    assert [e["attempt"] for e in logs if e["event"] == "storage_locked_retry"] == [1, 2]
    assert [e["event"] for e in logs if e["log_level"] == "error"] == ["storage_locked_gave_up"]
    assert stored_texts(path) == []
    assert await repo.add("telegram:1", "user", "hello again") >= 1  # fine once the lock is gone


async def test_other_database_errors_are_not_retried(db):
    path, engine = db
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE message")
    repo = MessageRepo(engine, lock_retry=LockRetry(5, wait_initial_s=0.01, wait_max_s=0.02))
    with capture_logs() as logs, pytest.raises(OperationalError, match="no such table"):
        await repo.add("telegram:1", "user", "hello")
    assert not [e for e in logs if e["event"].startswith("storage_locked")]


def test_busy_timeout_reaches_every_connection(db):
    _, engine = db
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == int(BUSY_TIMEOUT_S * 1000)
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


async def test_the_engine_keeps_the_message_through_a_short_lock_and_names_a_long_one(db):
    from core.storage.repos import Storage
    from tests.helpers_engine import collect, incoming, make_service, notices

    path, engine = db
    storage = Storage(engine, lock_retry=LockRetry(10, wait_initial_s=0.05, wait_max_s=0.2))
    service = make_service(storage)
    await collect(service, incoming("first"))  # the person and chat rows exist: later turns only read them
    lock = ExclusiveLock(path)
    timer = threading.Timer(0.4, lock.release)
    timer.start()
    try:
        events = await collect(service, incoming("second, written while locked"))
    finally:
        timer.join()
    assert not [n for n in notices(events) if n.reason == "error"]
    assert "second, written while locked" in stored_texts(path)

    impatient = make_service(Storage(engine, lock_retry=LockRetry(2, wait_initial_s=0.01, wait_max_s=0.02)))
    lock = ExclusiveLock(path)
    try:
        message = incoming("third, lock never ends")
        events = await collect(impatient, message)
    finally:
        lock.release()
    [notice] = notices(events)
    assert notice.reason == "error" and message.trace_id in notice.text and "locked" not in notice.text
