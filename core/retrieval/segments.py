"""The parts of a passage that have renderings of their own: a poem's stanzas, a long chapter's segments.

A long chapter of the Mencius (揠苗助长 is four lines of 浩然之气's forty) has one gloss that can
name only its gist, so a reader retelling one story of it shares few words with that gloss. Such
chapters are cut into segments, each rendered in `data/glosses/segments/*.jsonl` the way a poem's
stanzas are: whole sentences (a cut after 。！？； and a closing quote), packed in order until a
segment has SEGMENT_CHARS characters, a short tail joined to the segment before it. The cut is a
pure function of the text, so a rendering's segment number always names the same words.
"""

from __future__ import annotations

import re

from core.language.text import cjk_count

LONG_CHARS = 200  # a prose passage of at least this many CJK characters is cut into segments
SEGMENT_CHARS = 100  # a segment closes at the first sentence end after this many characters
TAIL_CHARS = 40  # a last piece shorter than this joins the segment before it
_SENTENCE = re.compile(r"[^。！？；\n]*(?:[。！？；]+[”’」』]*|\n|$)")


def sentences(text: str) -> list[str]:
    """The text's sentences with their closing marks, blank pieces dropped."""
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def segments(text: str) -> list[str]:
    """A long prose text's segments in order; one segment (the text) for a short one."""
    if cjk_count(text) < LONG_CHARS:
        return [text.strip()]
    out: list[str] = []
    current = ""
    for sentence in sentences(text):
        current += sentence
        if cjk_count(current) >= SEGMENT_CHARS:
            out.append(current)
            current = ""
    if current:
        if out and cjk_count(current) < TAIL_CHARS:
            out[-1] += current
        else:
            out.append(current)
    return out


def parts(corpus: str, text: str) -> list[str]:
    """A poem's stanzas (the corpus's lines) or a prose passage's segments."""
    if corpus == "shijing":
        return [s for s in text.split("\n") if s.strip()]
    return segments(text)
