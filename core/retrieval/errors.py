"""Errors of the passage index (re-exported by core.retrieval.store, where callers import them)."""


class IndexMismatchError(Exception):
    """The table was built with another embedding model or dimension."""


class IndexMissingError(Exception):
    """No passages have been indexed yet."""
