"""Errors that stop the program with one line for the operator (never a traceback)."""


class StartupError(Exception):
    """Fuzi cannot start as configured; the message says what to do."""
