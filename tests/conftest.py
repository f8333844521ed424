"""Session-wide fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_asyncio

from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_corpus import corpus_dir as _resolve_corpus

# A test is of the `services` kind (it needs the real PostgreSQL or Redis) when it uses a fixture of
# tests/helpers_db.py that reaches them, or runs as the "postgresql" or "redis" case of a store
# contract (`database_url` and the contract fixtures take those fixtures inside). `-m services` selects
# them; `-m "not services"` runs without the two servers.
_SERVICE_FIXTURES = {"postgres_url", "redis_prefix"}
_SERVICE_CASES = {"postgresql", "redis"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that need the real servers `services` (before `-m` selects by marker)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        cases = callspec.params.values() if callspec is not None else ()
        if set(getattr(item, "fixturenames", ())) & _SERVICE_FIXTURES or any(
            isinstance(c, str) and c in _SERVICE_CASES for c in cases
        ):
            item.add_marker(pytest.mark.services)


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The verified corpus folder, found the way the app finds it (see tests/helpers_corpus.py)."""
    return _resolve_corpus()


@pytest_asyncio.fixture
async def tg():
    """A fake Telegram Bot API server on loopback (tests/fakes/telegram_api.py)."""
    async with FakeTelegram() as fake:
        yield fake
