"""First-start progress: rich bars on a terminal, plain lines otherwise."""

from __future__ import annotations

import io

from bot.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_when_not_a_terminal():
    out = io.StringIO()
    progress = Progress.for_stream(out)
    with progress.spinner("fetching the corpus"):
        pass
    with progress.counted("building the index") as step:
        for done in range(10, 101, 10):
            step(done, 100)
    lines = out.getvalue().splitlines()
    assert lines[0] == "fetching the corpus …" and lines[1] == "building the index …"
    assert lines[2].startswith("building the index: 10/100 passages") and lines[-1].startswith(
        "building the index: 100/100"
    )
    assert len(lines) <= 13 and "\x1b[" not in out.getvalue()  # about one line per tenth, no escapes


def test_a_bar_on_a_terminal():
    out = Terminal()
    progress = Progress.for_stream(out)
    with progress.counted("building the index") as step:
        step(400, 817)
        step(817, 817)
    text = out.getvalue()
    assert "\x1b[" in text and "817/817" in text and "building the index" in text
    assert "building the index: " not in text  # the bar, not the plain lines


def test_a_spinner_on_a_terminal_goes_away_when_done():
    out = Terminal()
    with Progress.for_stream(out).spinner("fetching the corpus"):
        pass
    assert "fetching the corpus" in out.getvalue()
