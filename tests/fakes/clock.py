"""The one fake monotonic clock of the tests: it moves only when the test says so."""

from __future__ import annotations


class FakeClock:
    """A monotonic clock (seconds) for code that takes `clock: Callable[[], float]`.

    Args:
        now: the starting reading (1000.0: far from 0, so "0 means unset" bugs show).
    """

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
