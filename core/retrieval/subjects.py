"""The subject index: what every passage is about, for topic questions whose subject has no theme list.

The theme lists (themes.py) cover the subjects readers ask most, in a curated order; a reader also asks
about anger, food, brothers, old age or Heaven, and no list can name them all. `data/themes/subjects/`
is a subject index like the one at the back of a study edition: for every passage of the five books,
its one to five subjects, the main one first, each named by the modern words a reader types (愤怒,
生气, 怒) and in English ("anger", "angry"), written from the texts alone, never from a query set
(data/themes/subjects/README.md).

A question in one of the topic forms (topic_forms.py) whose subject is such a name and which says no
more than it (孔子怎么看愤怒, 孟子论兄弟, "What does Mencius say about old age?") gets the passages
indexed under that name: those whose main subject it is first, then the rest; the retriever ranks them
by the question's words among themselves (a listing, themes.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.books import sort_key
from core.retrieval.jsonl import jsonl_rows

SUBJECT_DIR = "subjects"  # a folder of data/themes
MAX_SUBJECTS = 5
MIN_PASSAGES = 2  # a subject of one passage is that passage's question, not a topic
_ZH_NAME = re.compile(r"[\u4e00-\u9fff]{1,6}")
_EN_NAME = re.compile(r"[a-z][a-z' -]{0,40}")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_LONGEST_ZH, _LONGEST_EN = 6, 4


class SubjectError(ValueError):
    """A subject index file is malformed; the message names file:line."""


@dataclass(frozen=True)
class Subject:
    """A name of the index found in a question: its words there and the passages indexed under it."""

    zh: tuple[str, ...]  # the Chinese name as the question has it (empty: none)
    en: str  # the English words as the question has them ("": none)
    ids: tuple[str, ...]  # main subject first, then by place in the passage's list, then corpus order
    saying: bool = False  # a Chinese name of 3+ characters that is a line's words (巧言令色): a quote


class SubjectIndex:
    """Names → passages; `find(zh_runs, en_runs)` the subjects a question names."""

    def __init__(
        self,
        entries: Iterable[tuple[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]],
        texts: Iterable[str] = (),
    ):
        """`entries`: (passage id, its subjects: (Chinese names, English names) each, main first);
        `texts`: the passages' texts, where a name of three or more characters may be a line's words."""
        places: dict[str, dict[str, int]] = {}  # name → passage → the subject's place in its list
        for pid, subjects in entries:
            for place, (zh, en) in enumerate(subjects):
                for name in (*zh, *(_english_key(w) for w in en)):
                    places.setdefault(name, {}).setdefault(pid, place)
        order = {pid: sort_key(pid) for pid in {pid for found in places.values() for pid in found}}
        self._ids = {
            name: tuple(sorted(found, key=lambda pid: (found[pid], order[pid])))
            for name, found in places.items()
            if len(found) >= MIN_PASSAGES
        }
        self._joined = "\0".join(texts)
        self._sayings: dict[str, bool] = {}  # name → a line's words; looked up when a question names it

    @classmethod
    def load(cls, folder: Path, texts: dict[str, str]) -> SubjectIndex:
        """The index in `folder`/*.jsonl (a missing folder: an empty index) over the passages `texts`
        (id → text; others left out). Raises SubjectError naming file:line for a malformed line."""
        entries = [(pid, subjects) for pid, subjects in _entries(folder) if pid in texts]
        return cls(entries, texts.values())

    def __len__(self) -> int:
        return len(self._ids)

    def find(self, zh_runs: Iterable[str], en_runs: Iterable[str]) -> list[Subject]:
        """The names the question's runs hold (Chinese runs in simplified characters, English ones in
        lower case; the caller cuts the runs at its scaffold words), longest first, none inside another
        found name (兄弟之间 names 兄弟, "old age" old age, not age). A one-character name counts only
        as a run of its own: 天 in 孔子怎么看天, not in 今天."""
        found: list[Subject] = []
        for run in zh_runs:
            taken: list[tuple[int, int]] = []
            for size in range(min(_LONGEST_ZH, len(run)), 1 if len(run) > 1 else 0, -1):
                for start in range(len(run) - size + 1):
                    name = run[start : start + size]
                    if name in self._ids and not _overlaps(taken, start, start + size):
                        taken.append((start, start + size))
                        found.append(Subject((name,), "", self._ids[name], self._saying(name)))
        for run in en_runs:
            words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(run)]
            spans: list[tuple[int, int]] = []
            for size in range(min(_LONGEST_EN, len(words)), 0, -1):
                for start in range(len(words) - size + 1):
                    span = words[start : start + size]
                    key = " ".join(_singular(w) for w, _, _ in span)
                    if key in self._ids and not _overlaps(spans, start, start + size):
                        spans.append((start, start + size))
                        found.append(Subject((), run[span[0][1] : span[-1][2]], self._ids[key]))
        return found

    def _saying(self, name: str) -> bool:
        if name not in self._sayings:
            self._sayings[name] = len(name) >= 3 and name in self._joined
        return self._sayings[name]


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a < end and start < b for a, b in spans)


def _english_key(name: str) -> str:
    """An English name (lower case letters, spaces, hyphens, apostrophes) as the index keys it: its
    words, a plural's -s dropped ("brothers" and "brother" are one name)."""
    return " ".join(_singular(w) for w in name.replace("-", " ").split())


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _entries(folder: Path) -> Iterable[tuple[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]]:
    seen: set[str] = set()
    for where, row in jsonl_rows(folder, SubjectError):
        topics = row.get("topics") if isinstance(row, dict) else None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not isinstance(topics, list):
            raise SubjectError(f'{where}: expected {{"id": str, "topics": [{{"zh": […], "en": […]}}, …]}}')
        if not 0 < len(topics) <= MAX_SUBJECTS or not all(_subject(t) for t in topics):
            raise SubjectError(
                f"{where}: 1–{MAX_SUBJECTS} subjects, each 1–4 Chinese names of 1–6 characters and 1–3 English ones"
            )
        if row["id"] in seen:
            raise SubjectError(f"{where}: {row['id']} is indexed twice")
        seen.add(row["id"])
        yield row["id"], tuple((tuple(t["zh"]), tuple(t["en"])) for t in topics)


def _subject(topic: object) -> bool:
    if not isinstance(topic, dict):
        return False
    zh, en = topic.get("zh"), topic.get("en")
    return (
        isinstance(zh, list)
        and 0 < len(zh) <= 4
        and all(isinstance(w, str) and _ZH_NAME.fullmatch(w) for w in zh)
        and isinstance(en, list)
        and 0 < len(en) <= 3
        and all(isinstance(w, str) and _EN_NAME.fullmatch(w) for w in en)
    )
