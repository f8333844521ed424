"""Progress for the first start: rich bars on a terminal, plain log lines otherwise.

`Progress.for_stream(sys.stderr)` picks the display: a `rich` bar (spinner for the corpus fetch,
a counted bar for embedding) when the stream is a terminal, else one line per step (start, every
~10 %, done), which reads well in `journalctl`, CI logs and piped runs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

Step = Callable[[int, int], None]  # (done, total)


class Progress:
    """Shows long first-start steps on `stream`.

    Args:
        stream: where progress goes (stderr: stdout stays for answers).
        rich: draw rich bars (a terminal) instead of plain lines.
    """

    def __init__(self, stream: TextIO, *, rich: bool):
        self._stream = stream
        self._rich = rich

    @classmethod
    def for_stream(cls, stream: TextIO | None = None) -> Progress:
        """Bars when `stream` (default stderr) is a terminal, plain lines otherwise."""
        stream = stream or sys.stderr
        return cls(stream, rich=_isatty(stream))

    @property
    def stream(self) -> TextIO:
        """Where the progress goes."""
        return self._stream

    def say(self, message: str) -> None:
        """One plain line."""
        print(message, file=self._stream, flush=True)

    @contextmanager
    def spinner(self, label: str) -> Iterator[None]:
        """An activity of unknown length (e.g. `npm pack`)."""
        if not self._rich:
            self.say(f"{label} …")
            yield
            return
        from rich.progress import Progress as Bar
        from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

        with Bar(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=_console(self._stream),
            transient=True,
        ) as bar:
            bar.add_task(label, total=None)
            yield

    @contextmanager
    def counted(self, label: str, unit: str = "passages") -> Iterator[Step]:
        """A counted activity; yields `step(done, total)`."""
        if not self._rich:
            self.say(f"{label} …")
            yield _LineSteps(self, label, unit)
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as Bar

        with Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=_console(self._stream),
            transient=False,
        ) as bar:
            task = bar.add_task(label, total=None)

            def step(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            yield step


class _LineSteps:
    """Plain-line progress: the start, about every tenth, and the end."""

    def __init__(self, progress: Progress, label: str, unit: str):
        self._progress, self._label, self._unit = progress, label, unit
        self._next = 0.0
        self._started = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        share = done / total
        if share >= self._next or done >= total:
            seconds = time.perf_counter() - self._started
            self._progress.say(f"{self._label}: {done}/{total} {self._unit} ({seconds:.0f} s)")
            self._next = min(1.0, share + 0.1)


def _console(stream: TextIO):
    from rich.console import Console

    return Console(file=stream, stderr=stream is sys.stderr)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
