"""The reading room's core: the books in order (`shelf`), chapter by chapter."""
