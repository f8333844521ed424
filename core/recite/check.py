"""The answer checker: is what the person typed the blanked phrase?

Both sides are compared as `core.language.text.squash` sees them (NFKC, lower case, OpenCC
Traditional → Simplified, punctuation, spaces and symbols set aside), then folded through the
variant table (core/recite/variants.py). The answer is right when it is the phrase, or the whole
line with the phrase in place. Anything else is wrong, one changed character included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.language.text import squash
from core.recite.variants import fold

MAX_ANSWER_CHARS = 400
"""Longer answers are not compared (a paste of a chapter, a flood): answered with one line."""

Outcome = Literal["right", "wrong", "empty", "too_long"]


@dataclass(frozen=True)
class Checked:
    """The verdict on one answer: its outcome and where the first wrong character is (or -1)."""

    outcome: Outcome
    first_wrong: int = -1

    @property
    def right(self) -> bool:
        return self.outcome == "right"


def norm(text: str) -> str:
    """What the comparison sees of `text`."""
    return fold(squash(text))


def check(answer: str, phrase: str, line: str = "") -> Checked:
    """The verdict on `answer` for the blanked `phrase` of `line` (see the module docstring)."""
    if len(answer) > MAX_ANSWER_CHARS:
        return Checked("too_long")
    got = norm(answer)
    if not got:
        return Checked("empty")
    want = norm(phrase)
    if got == want or (line and got == norm(line)):
        return Checked("right")
    first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
    return Checked("wrong", first)
