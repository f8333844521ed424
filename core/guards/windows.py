"""Sentence windows of a message: what the classifiers score besides the whole
message, so that an attack after a long benign prefix is not diluted."""

from __future__ import annotations

import re

# Where a message may be cut into sentences for window scoring (the break stays with the sentence).
# Not at semicolons: they join clauses of one sentence ("Blue, blue your collar; sad, sad my heart.").
_SENTENCE_END = re.compile(r"(?<=[。！？!?…\n])|(?<=[.])\s+")
# A window is never shorter than this: the classifier's score of a clause of a few words rests on one
# or two n-grams and is badly calibrated (shorter windows flagged "And where you are?" and "Blue, blue
# your collar;"). Chosen on cross-validated dev scores (docs/guards.md).
MIN_SENTENCE_CHARS = 24
MAX_WINDOWS = 8


def sentences(text: str) -> list[str]:
    """`text` cut after sentence-ending punctuation; fragments shorter than MIN_SENTENCE_CHARS are
    joined to the sentence before them (or the first to the next), so a window never is a lone
    "好。", "OK." or a short clause."""
    out: list[str] = []
    for part in _SENTENCE_END.split(text):
        part = part.strip()
        if not part:
            continue
        if out and (len(part) < MIN_SENTENCE_CHARS or len(out[-1]) < MIN_SENTENCE_CHARS):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def windows(text: str) -> list[str]:
    """Windows of one and two consecutive sentences, the last ones first, at most MAX_WINDOWS.

    The classifier scores the whole message; in a long message an attack in one sentence is a small
    share of the n-grams and its score is diluted. Scoring windows too (the tail first, where a
    hijack after a benign prefix sits) keeps that share high. None for a single sentence.
    """
    parts = sentences(text)
    if len(parts) < 2:
        return []
    found: list[str] = []
    for i in range(len(parts) - 1, -1, -1):
        found.append(parts[i])
        if i > 0 and len(parts) > 2:
            found.append(f"{parts[i - 1]} {parts[i]}")
        if len(found) >= MAX_WINDOWS:
            break
    return found[:MAX_WINDOWS]
