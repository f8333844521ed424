"""Quiz questions from passages: complete the line, which book and chapter, who is speaking.

Written over any `Passage` with `corpus`, `ref` and `text` (the Analects and the Songs now; the other
Four Books join the same list), never over one book's layout:

- **complete** ("补全"): a sentence of a passage (split at 。！？；) with at least two clauses; the
  question shows all but its last clause, the options are that clause and the last clauses of other
  sentences of the same book, of a similar length (±1 character, then ±3).
- **place** ("出处"): a sentence; the options are places in the books: the citation without its
  paragraph (`《论语·八佾》第22章` → `《论语·八佾》`) or, for a poem, without its title
  (`《诗经·国风·周南·关雎》` → `《诗经·国风·周南》`). Distractors come from the same book first.
- **speaker** ("谁说的"): a passage that opens with `X曰：`, where X is one of the book's speakers
  (names that open at least `MIN_SPEAKER_PASSAGES` passages, e.g. 子/曾子/有子/子贡, 孟子);
  the question quotes the words, the options are speakers.

Every quiz has 4 options (3 when a book has too few distinct ones; never fewer), the right one at a
random place, and an explanation of at most 200 characters that cites the passage (Telegram's limit).
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.types import Passage

KINDS = ("complete", "place", "speaker")
OPTIONS = 4
MIN_OPTIONS = 3
QUESTION_MAX = 300
OPTION_MAX = 100
EXPLANATION_MAX = 200
MIN_SPEAKER_PASSAGES = 3

_SENTENCE = re.compile(r"[^。！？；!?;\n]+[。！？；!?;]?")
_CLAUSE = re.compile(r"[，,]")
_QUOTES = "“”「」『』‘’\"'"
_SPEAKER = re.compile(r"^([\u4e00-\u9fff]{1,3})曰[：:]")
_NOT_NAMES = ("谓", "问", "对", "或", "告", "语")
_ALIASES = {"孔子": "子"}
"""Two names of one speaker (in the Analects 子 is Confucius): one option, never two."""
_LABELS = {"子": "孔子（子曰）"}


class NoQuiz(LookupError):
    """No quiz of this kind can be made from these passages."""


@dataclass(frozen=True)
class Quiz:
    """One question, ready to post: at most 4 options, the index of the right one, a short explanation."""

    kind: str
    passage_id: str
    question: str
    options: tuple[str, ...]
    correct: int
    explanation: str


def _clean(text: str) -> str:
    return "".join(ch for ch in text if ch not in _QUOTES).strip()


def sentences(text: str) -> list[str]:
    """The sentences of a passage, without quotation marks."""
    return [s.strip() for s in _SENTENCE.findall(_clean(text)) if len(s.strip()) >= 4]


def place(passage: Passage) -> str:
    """Where a passage stands: its citation without the paragraph number or the poem's title."""
    ref = passage.ref
    stripped = re.sub(r"第\s*\d+\s*章$", "", ref)
    if stripped != ref:
        return stripped
    inner = ref.strip("《》")
    head, sep, _ = inner.rpartition("·")
    return f"《{head}》" if sep else ref


def speaker(passage: Passage) -> str | None:
    """X of a passage that opens with `X曰：` (None otherwise, or when X is not a name)."""
    m = _SPEAKER.match(passage.text)
    if m is None or any(word in m[1] for word in _NOT_NAMES):
        return None
    return _ALIASES.get(m[1], m[1])


def speaker_label(name: str) -> str:
    """How a speaker is shown as an option: `曾子曰`, and 子 as `孔子（子曰）`."""
    return _LABELS.get(name, f"{name}曰")


def explanation(passage: Passage) -> str:
    """The passage's citation and as much of its text as fits in 200 characters."""
    head = f"出自{passage.ref}："
    body = _clean(passage.text).replace("\n", " ")
    room = EXPLANATION_MAX - len(head)
    return head + (body if len(body) <= room else body[: room - 1] + "…")


@dataclass
class _Index:
    """What QuizMaker draws wrong answers from, built once from the passages."""

    endings: dict[str, list[str]] = field(default_factory=dict)  # a book → its sentences' last clauses
    places: dict[str, list[str]] = field(default_factory=dict)  # a book → its chapters / poems, in order
    where: dict[str, set[str]] = field(default_factory=dict)  # a sentence → the places it stands in (repeated lines)
    after: dict[str, set[str]] = field(default_factory=dict)  # a sentence's opening clauses → every ending they have
    speakers: dict[str, list[str]] = field(default_factory=dict)  # a book → who speaks often enough


class QuizMaker:
    """Makes quizzes from a list of passages (built once; the index work is done here).

    Args:
        passages: every passage the bot has (core.retrieval.documents.load_corpus).
    """

    def __init__(self, passages: Sequence[Passage]) -> None:
        self._passages = [p for p in passages if p.corpus and p.text.strip()]

    # The index is built at the first quiz (~50 ms for the five books), not at every start.
    @functools.cached_property
    def _index(self) -> _Index:
        index = _Index()
        counts: dict[str, Counter[str]] = {}
        for p in self._passages:
            for s in sentences(p.text):
                index.where.setdefault(_bare(s), set()).add(place(p))
                parts = [c for c in _CLAUSE.split(s) if c.strip()]
                if len(parts) >= 2 and "曰" not in parts[-1]:
                    index.endings.setdefault(p.corpus, []).append(parts[-1].strip())
                    index.after.setdefault(_bare("".join(parts[:-1])), set()).add(_bare(parts[-1]))
            book_places = index.places.setdefault(p.corpus, [])
            if place(p) not in book_places:
                book_places.append(place(p))
            who = speaker(p)
            if who:
                counts.setdefault(p.corpus, Counter())[who] += 1
        index.speakers = {
            book: [name for name, n in c.most_common() if n >= MIN_SPEAKER_PASSAGES] for book, c in counts.items()
        }
        return index

    @property
    def _endings(self) -> dict[str, list[str]]:
        return self._index.endings

    @property
    def _places(self) -> dict[str, list[str]]:
        return self._index.places

    @property
    def _where(self) -> dict[str, set[str]]:
        return self._index.where

    @property
    def _after(self) -> dict[str, set[str]]:
        return self._index.after

    @property
    def _speakers(self) -> dict[str, list[str]]:
        return self._index.speakers

    def make(self, rng: random.Random, kind: str | None = None, attempts: int = 40) -> Quiz:
        """A quiz of `kind` (None: any kind) on a random passage; NoQuiz when none can be made."""
        kinds = [kind] if kind else list(KINDS)
        for _ in range(attempts):
            k = rng.choice(kinds)
            passage = rng.choice(self._passages)
            quiz = self.make_from(passage, k, rng)
            if quiz is not None:
                return quiz
        raise NoQuiz(kind or "any")

    def make_from(self, passage: Passage, kind: str, rng: random.Random) -> Quiz | None:
        """A quiz of `kind` on `passage`, or None when the passage does not lend itself to one."""
        if kind == "complete":
            return self._complete(passage, rng)
        if kind == "place":
            return self._place(passage, rng)
        if kind == "speaker":
            return self._speaker(passage, rng)
        raise ValueError(f"unknown quiz kind {kind!r}")

    def _complete(self, passage: Passage, rng: random.Random) -> Quiz | None:
        candidates = []
        for s in sentences(passage.text):
            parts = [c for c in re.split(r"([，,])", s) if c]
            if sum(1 for c in parts if not _CLAUSE.fullmatch(c)) >= 2 and len(s) <= QUESTION_MAX - 20:
                candidates.append(parts)
        if not candidates:
            return None
        parts = rng.choice(candidates)
        answer = parts[-1].strip()
        shown = "".join(parts[:-1])
        if len(_bare(_SPEAKER.sub("", shown))) < 3:
            return None
        taken = self._after.get(_bare(shown), set()) | {_bare(answer)}  # every right ending of this opening
        pool = [e for e in self._endings.get(passage.corpus, []) if _bare(e) not in taken]
        wrong = _similar(pool, answer, rng)
        if wrong is None:
            return None
        return _build("complete", passage, f"补全下句：{shown}____", answer, wrong, rng)

    def _place(self, passage: Passage, rng: random.Random) -> Quiz | None:
        sents = [s for s in sentences(passage.text) if 6 <= len(s) <= 60 and len(self._where.get(_bare(s), ())) == 1]
        if not sents:
            return None
        answer = place(passage)
        pool = [p for p in self._places.get(passage.corpus, []) if p != answer]
        others = [p for book, ps in self._places.items() if book != passage.corpus for p in ps]
        wrong = _pick(pool, rng, OPTIONS - 1) or _pick(pool + others, rng, OPTIONS - 1)
        if wrong is None:
            return None
        quote = rng.choice(sents)
        return _build("place", passage, f"「{quote}」出自哪一篇？", answer, wrong, rng)

    def _speaker(self, passage: Passage, rng: random.Random) -> Quiz | None:
        who = speaker(passage)
        names = self._speakers.get(passage.corpus, [])
        if who is None or who not in names:
            return None
        words = _clean(_SPEAKER.sub("", passage.text, count=1)).replace("\n", "")
        if len(words) < 4:
            return None
        if len(words) > 80:
            words = words[:79] + "…"
        wrong = _pick([n for n in names if n != who], rng, OPTIONS - 1)
        if wrong is None:
            return None
        return _build(
            "speaker",
            passage,
            f"「{words}」是谁说的？",
            speaker_label(who),
            [speaker_label(n) for n in wrong],
            rng,
        )


def _bare(text: str) -> str:
    return re.sub(r"[^\w]", "", text)


def _pick(pool: Sequence[str], rng: random.Random, n: int) -> list[str] | None:
    unique = list(dict.fromkeys(pool))
    if len(unique) < MIN_OPTIONS - 1:
        return None
    return rng.sample(unique, min(n, len(unique)))


def _similar(pool: Sequence[str], answer: str, rng: random.Random) -> list[str] | None:
    """Up to three distinct clauses of a length near the answer's (±1, then ±3)."""
    for spread in (1, 3):
        near = list(dict.fromkeys(e for e in pool if abs(len(e) - len(answer)) <= spread))
        if len(near) >= OPTIONS - 1:
            return rng.sample(near, OPTIONS - 1)
    return _pick(pool, rng, OPTIONS - 1)


def _build(kind: str, passage: Passage, question: str, answer: str, wrong: Sequence[str], rng: random.Random) -> Quiz:
    options = [_option(answer), *(_option(w) for w in wrong)]
    options = list(dict.fromkeys(options))[:OPTIONS]
    rng.shuffle(options)
    q = question if len(question) <= QUESTION_MAX else question[: QUESTION_MAX - 1] + "…"
    return Quiz(kind, passage.id, q, tuple(options), options.index(_option(answer)), explanation(passage))


def _option(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= OPTION_MAX else one[: OPTION_MAX - 1] + "…"
