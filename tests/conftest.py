"""Session-wide fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_asyncio

from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_corpus import corpus_dir as _resolve_corpus


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The verified corpus folder, found the way the app finds it (see tests/helpers_corpus.py)."""
    return _resolve_corpus()


@pytest_asyncio.fixture
async def tg():
    """A fake Telegram Bot API server on loopback (tests/fakes/telegram_api.py)."""
    async with FakeTelegram() as fake:
        yield fake
