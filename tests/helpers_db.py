"""Real PostgreSQL and Redis for tests: one fresh schema / key prefix per test, removed afterwards.

Servers: FUZI_TEST_POSTGRES_URL (default postgresql+psycopg://postgres@127.0.0.1:5432/test) and
FUZI_TEST_REDIS_URL (default redis://127.0.0.1:6379/15). Where one is unreachable its tests are
skipped with one line saying so; with CI=true that is a failure instead.

Import the fixtures a module needs: `from tests.helpers_db import database_url  # noqa: F401`.
"""

from __future__ import annotations

import os
import uuid
from functools import lru_cache
from urllib.parse import quote

import pytest
from sqlalchemy import create_engine, text

from bot.shared_state import redis_client as build_redis_client

POSTGRES_URL = os.environ.get("FUZI_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("FUZI_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _absent(what: str, why: str) -> None:
    line = f"{what} unreachable ({why}); start it as in /work/.library/env/machines/python-svc.md"
    if _in_ci():
        pytest.fail(f"CI=true but {line}", pytrace=False)
    pytest.skip(line)


@lru_cache(maxsize=1)
def _postgres_error() -> str | None:
    engine = create_engine(POSTGRES_URL, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return None
    except Exception as exc:  # noqa: BLE001 - any failure means "not here"
        return str(exc).splitlines()[0][:160]
    finally:
        engine.dispose()


def postgres_schema_url(schema: str) -> str:
    """The test server's URL with `schema` first on the search path."""
    sep = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{sep}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def postgres_url():
    """A URL whose every connection works in a new, empty schema (dropped after the test)."""
    error = _postgres_error()
    if error:
        _absent("PostgreSQL", error)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield postgres_schema_url(schema)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    """Each test twice: on a SQLite file and on a PostgreSQL schema of its own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fuzi.sqlite3'}"
    else:
        yield request.getfixturevalue("postgres_url")


@lru_cache(maxsize=1)
def _redis_error() -> str | None:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        client.ping()
        return None
    except Exception as exc:  # noqa: BLE001
        return str(exc).splitlines()[0][:160]
    finally:
        client.close()


@pytest.fixture
def redis_prefix():
    """(url, key prefix) of the test Redis; every key under the prefix is deleted after the test."""
    error = _redis_error()
    if error:
        _absent("Redis", error)
    import redis

    prefix = f"fuzitest:{uuid.uuid4().hex[:12]}:"
    yield REDIS_URL, prefix
    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=500))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture
async def redis_client():
    """``make(url)``: a Redis client built as bot/ builds one (its own pool, as one process has;
    ``timeout_s`` as bot/ passes it); every client made is closed after the test."""
    made = []

    def make(url: str = REDIS_URL, **kwargs):
        made.append(build_redis_client(url, **kwargs))
        return made[-1]

    yield make
    for client in made:
        await client.aclose()
