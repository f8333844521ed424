"""A cloze card: one line of a passage with one phrase blanked, `＿` for each missing character.

Lines end at 。！？；, at a line break (a poem's stanzas) or at the end of the passage; a phrase is
one clause of the line (between ，、：), 2 to 8 characters; a longer clause gives its last 4 to 6
characters. "子曰" and other speaker openings ("…曰") are never blanked. The choice is drawn from a
seed (the card and how often it was reviewed), so one card shows a different line on each review and
every replica shows the same one for the same review.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

BLANK = "＿"
_LINE_END = re.compile(r"(?<=[。！？；!?;])|\n")
_CLAUSE = re.compile(r"[^，、：,:。！？；!?;“”‘’「」『』\"'\s]+")
_HAN = re.compile(r"[\u3400-\u9fff\U00020000-\U0002fa1f]")
_QUOTES = "“”‘’「」『』\"' \u3000"
MIN_CHARS, MAX_CHARS = 2, 8


@dataclass(frozen=True)
class Cloze:
    """One card as shown: `shown` is `line` with `phrase` replaced by blanks."""

    line: str
    phrase: str
    shown: str


def lines(text: str) -> list[str]:
    """The passage's lines, quotes and spaces trimmed, empty ones left out."""
    found = [part.strip(_QUOTES) for part in _LINE_END.split(text)]
    return [line for line in found if _HAN.search(line)]


def _candidates(line: str) -> list[tuple[int, int]]:
    """(start, end) of each phrase of `line` that may be blanked."""
    spans = []
    for clause in _CLAUSE.finditer(line):
        text = clause.group()
        if text.endswith("曰") or not all(_HAN.match(ch) for ch in text):
            continue
        start, end = clause.span()
        if len(text) > MAX_CHARS:
            start = end - (4 + len(text) % 3)  # the clause's last 4 to 6 characters
        if end - start >= MIN_CHARS:
            spans.append((start, end))
    return spans


def make_cloze(text: str, seed: str) -> Cloze | None:
    """A cloze of the passage `text`, drawn from `seed`; None when no line has a phrase to blank."""
    choices = [(line, span) for line in lines(text) for span in _candidates(line)]
    if not choices:
        return None
    line, (start, end) = random.Random(seed).choice(choices)
    phrase = line[start:end]
    return Cloze(line, phrase, line[:start] + BLANK * len(phrase) + line[end:])
