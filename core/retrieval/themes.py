"""Topic questions: a theme index over the five books and the rule that recognises a topic question.

The texts never say "love" or "war", so neither word overlap nor a small embedder can find a theme.
`data/themes/` holds which poems and passages belong to which theme (爱情, 战争, 孝, 仁 …), best known
first, written and reviewed from the standard commentaries (sources in each file's header; never
generated at run time), and the words that name each theme in Chinese and English questions.

A question that names a theme as its subject asks for a list ("诗经里有哪些写爱情的诗？", "Which
poems are love songs?"), about it ("孔子怎么看孝？", "What did Confucius say about music?"), what it
is or how it is done (什么是仁, 孔子怎样教学生, "How did Confucius teach?"), or names it alone (孝道,
"Filial piety"; not a person's name: 颜回 is a name query); the forms are in topic_forms.py. One
that says no more than its theme is a *survey*: the theme's passages first, in the file's order (关雎
before 泽陂). One that says more ("friends *who lie*", 哪几首写男女相思的诗, "Mencius on war *and
Yan*") adds the theme as one more fused route (passages scored by their place in the list) and
keeps the gloss route, so its other words still choose; without a list it counts only when a marker
governs the theme (on/about X, 论X, 对X的态度), never in a classical line. A question naming 诗经/
poems/songs keeps to the Book of Songs, one naming 论语/Confucius/the Master to the Analects.
A question no theme names may name a subject of the subject index (subjects.py: 孔子怎么看愤怒); saying
no more than it, it is answered from the subject's passages in fused order.
A question that tells the asker's case and asks only the master's view (told.py: 最近一心想赚钱发财，孔子会怎么看
我这种人) surveys what the case names; one in clauses asks what its clause that asks a survey asks, when the
others only set the scene (孔子信命吗？他说的天命到底指什么).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import structlog

from core.books import BOOKS, books_in
from core.language.text import has_cjk, to_simplified
from core.retrieval.keyword import is_modern_question
from core.retrieval.named_books import book_hint, of_confucius, without_titles
from core.retrieval.subjects import SUBJECT_DIR, Subject, SubjectError, SubjectIndex
from core.retrieval.theme_cells import ThemeCells, theme_rows
from core.retrieval.told import case, scene
from core.retrieval.topic_forms import (
    ABOUT_EN,
    ASKS_ZH,
    BARE_ZH,
    CANON,
    SURVEY_EN,
    SURVEY_ZH,
    SURVEY_ZH_END,
    alone,
    asks_about,
    asks_what,
    governs,
    heading,
    qualified,
    subject_runs,
)
from core.types import Passage

__all__ = ["Theme", "ThemeIndex", "TopicQuery", "book_hint"]

log = structlog.get_logger(__name__)
SUBJECTS = Path(str(resources.files("data") / "themes")) / SUBJECT_DIR


_CLAUSE = re.compile(r"[，,。；;！!？?]+")
_TITLED = {book.name: book.id for book in BOOKS}  # a theme named like a book (中庸): that book's first
_PAIR = re.compile(r"(\w)[和与](\w)")  # a theme word naming a pair: 义和利, 言与行


@dataclass(frozen=True)
class Theme:
    """One theme: its name, the words that name it, and its passages best known first."""

    name: str
    zh: tuple[str, ...]
    en: re.Pattern | None
    ids: tuple[str, ...]
    names: frozenset[str] = frozenset()  # the words that are a person's name (颜回, 接舆, "yan hui")
    holds: tuple[tuple[str, frozenset[str]], ...] = ()  # (Chinese word, its passages whose text has it)
    sayings: frozenset[str] = frozenset()  # its words of 3+ characters that are a line's words (民为贵, 过犹不及)
    # named by two persons (尧舜): each name, and its passages whose text does not name the other
    halves: tuple[tuple[str, frozenset[str]], ...] = ()

    @property
    def person(self) -> bool:
        """Named only by a person's name (颜回, 子路): never asked for alone or by a what-is question."""
        return bool(self.names) and set(self.zh) <= self.names


@dataclass(frozen=True)
class TopicQuery:
    """A recognised topic question: its themes, whether it asks for a list, the book it keeps to."""

    themes: tuple[Theme, ...]
    survey: bool  # says no more than its themes: their passages first, in the themes' order
    corpus: str  # the books the question names, a selection: "all", "lunyu", "lunyu,mengzi" …
    listing: bool = False  # asks for a list: the theme's passages first, in fused order when qualified
    across: bool = False  # names several books or the canon (孟子和孔子, 四书, 儒家): the books in turn
    words: tuple[str, ...] = ()  # the themes' Chinese words it names (君子, 小人)
    indexed: bool = False  # its subjects are the subject index's: a survey, its passages in fused order

    @property
    def qualified(self) -> bool:
        """Says more than its themes: the gloss route still runs, the themes are one fused route."""
        return not self.survey


class ThemeIndex:
    """Themes over the passages; `recognise(query)` and `ranking(topic)`."""

    def __init__(self, themes: list[Theme], subjects: SubjectIndex | None = None):
        self.themes = [t for t in themes if t.ids]
        self.subjects = subjects

    @classmethod
    def of(cls, passages: Iterable[Passage], subjects: Path | None = SUBJECTS) -> ThemeIndex:
        """`load` over the corpus's passages (a poem's title with its section: 小雅·鹿鸣)."""
        return cls.load(theme_rows(passages), subjects)

    @classmethod
    def load(cls, passages: Iterable[tuple[str, str, str, str]], subjects: Path | None = SUBJECTS) -> ThemeIndex:
        """Resolve `data/themes/*.tsv` against (id, corpus, text, title-with-section) tuples, with the
        subject index in the folder `subjects` (None, or a damaged file, logged: none)."""
        files = resources.files("data") / "themes"
        words = _rows(files.joinpath("words.tsv").read_text("utf-8"))
        songs = _rows(files.joinpath("shijing.tsv").read_text("utf-8"))
        analects = _rows(files.joinpath("lunyu.tsv").read_text("utf-8"))
        by_id = _rows(files.joinpath("sishu.tsv").read_text("utf-8"))  # 孟子, 大学, 中庸: named by id
        cells = ThemeCells(passages)
        texts = cells.texts
        joined = "\0".join(texts.values())
        themes = []
        for name, zh_words, en_words in words:
            # the Analects' and the other books' passages before the Songs': a question that names no
            # book asks what the books teach of 孝 or 友, which a poem (蓼莪, 伐木) sings; one naming poems
            # keeps to the Songs
            ids: list[str] = []
            for file, rows in (("lunyu", analects), ("sishu", by_id), ("shijing", songs)):
                ids += [pid for row in rows if row[0] == name for cell in row[1:] for pid in cells.ids(file, cell)]
            zh, en = _split(zh_words), _split(en_words)
            names = frozenset(w.lstrip("@") for w in zh + en if w.startswith("@"))  # @颜回: a person's name
            zh, en = tuple(w.lstrip("@") for w in zh), tuple(w.lstrip("@") for w in en)
            ids = list(dict.fromkeys(ids))
            holds = ((w, _holding(w, _pair(w, zh), ids, texts)) for w in zh if w not in names)
            sayings = frozenset(w for w in zh if len(w) >= 3 and w in joined)  # 民为贵 alone is a quote
            halves = _halves(name, names, ids, texts)
            themes.append(
                Theme(name, zh, _english(en), tuple(ids), names, tuple((w, h) for w, h in holds if h), sayings, halves)
            )
        return cls(themes, _subjects(subjects, texts))

    def recognise(self, query: str) -> TopicQuery | None:
        """The topic question `query` asks, or None when it names no theme (or names one in passing)."""
        topic = self._recognise(query)
        if topic is not None or not has_cjk(query) or not is_modern_question(query):
            return topic
        # a modern question in clauses asks what its last clause that asks a survey asks (孔子信命吗？他说的
        # 天命到底指什么; 礼到底是什么？不就是一堆繁文缛节吗), in the books the whole names, when the other
        # clauses only set the scene (told.scene) and name no other theme (一个人没有仁德，怎么对待
        # 音乐呢 translates a line)
        clauses = [c for c in _CLAUSE.split(to_simplified(query)) if c.strip()]
        unset = [n for n, clause in enumerate(clauses) if not scene(clause)]  # at most the one that asks
        if len(clauses) < 2 or len(unset) > 1:
            return None
        for n in unset or reversed(range(len(clauses))):
            part = self._recognise(clauses[n]) if ASKS_ZH.search(clauses[n]) else None
            if part is None or not (part.survey or part.indexed):
                continue
            told = "，".join(clauses[:n] + clauses[n + 1 :])
            if {id(t) for t in _named(self.themes, told, told)} - {id(t) for t in part.themes}:
                return None
            return dataclasses.replace(part, corpus=book_hint(query)) if part.corpus == "all" else part
        return None

    def _recognise(self, query: str) -> TopicQuery | None:
        simplified = to_simplified(query)
        zh, lower = without_titles(simplified), without_titles(_ASIDE.sub("", query.lower()))
        told = case(zh, lower)  # 最近一心想赚钱发财，孔子会怎么看我这种人: the case names the subject
        if told is not None and (topic := self._told(query, *told)):
            return topic
        found = _named(self.themes, zh, lower)
        bare = BARE_ZH.match(simplified)  # 孟子论义, 中庸讲的诚: a book, a marker and a theme's one-character name
        if bare:
            found = [t for t in self.themes if t.name == bare.group(1)] or found
        if found:
            return _topic(query, zh, lower, found, bool(bare))
        if self.subjects is None:
            return None
        # no theme list names it: the subject index may (孔子怎么看愤怒), for a question that says no more
        # than its subjects ("Which poem is about a woman whose husband …" asks for one poem); their
        # passages are ranked by the question's words
        runs, english = subject_runs(zh, lower)
        if of_confucius(zh, lower):  # 孟子怎么评价孔子: 孔子 is what is asked about, not a speaker to cut out
            runs.append("孔子")
        found = [_theme(s) for s in self.subjects.find(runs, english)]
        topic = _topic(query, zh, lower, found, False) if found else None
        if topic is None or not topic.survey:
            return None
        return dataclasses.replace(topic, survey=False, listing=True, indexed=True)

    def _told(self, query: str, zh: str, lower: str) -> TopicQuery | None:
        """A told case asks what the books say of the one or two themes (or subjects) it names: a survey."""
        found, indexed = [t for t in _named(self.themes, zh, lower) if not t.person], False
        if not found and self.subjects is not None:
            found, indexed = [_theme(s) for s in self.subjects.find(*subject_runs(zh, lower))], True
        if not found or len(found) > 2:
            return None
        words = tuple(w for t in found for w in t.zh if w in zh)
        return TopicQuery(tuple(found), not indexed, book_hint(query), indexed, False, words, indexed)

    @staticmethod
    def ranking(topic: TopicQuery, corpus: str = "all") -> list[tuple[str, float]]:
        """(id, score) of the topic's passages, best first: a passage scores 1 − rank/len in each of
        its themes, among the theme's passages in the books asked (孔子对鬼神和祭祀的态度: the Analects'
        祭祀 list, not its place after the hymns), summed (a passage in two asked themes beats one in a
        single theme), and 1 more when it has every word of a theme the question pairs (君子和小人的区别).
        A theme named like a book (中庸), asked with no book named, lists that book's passages first."""
        scores: dict[str, float] = {}
        for theme in topic.themes:
            ids = [pid for pid in theme.ids if _in(pid, topic.corpus) and _in(pid, corpus)]
            if (own := _TITLED.get(theme.name)) and topic.corpus == "all":  # 中庸之道: the book 中庸's own first
                ids.sort(key=lambda pid: not pid.startswith(f"{own}:"))
            paired = _paired(theme, topic.words) | _half(theme, topic.words)
            for rank, pid in enumerate(ids):
                scores[pid] = scores.get(pid, 0.0) + 1.0 - rank / len(ids) + (pid in paired)
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        if not topic.across:
            return ranked
        # a question naming several books (孟子和孔子怎么看仁) or the canon (四书里关于诚的论述) takes the
        # books in turn, each in the theme's order: the best known passages of each, not of one book
        by_book: dict[str, list[tuple[str, float]]] = {}
        for item in ranked:
            by_book.setdefault(item[0].split(":", 1)[0], []).append(item)
        turns = [
            book[i]
            for i in range(max(map(len, by_book.values()), default=0))
            for book in by_book.values()
            if i < len(book)
        ]
        return turns


def _topic(query: str, zh: str, lower: str, found: list[Theme], bare: bool) -> TopicQuery | None:
    """The topic question `query` asks about the themes `found` in it, or None when its form names
    them in passing."""
    asks_list = any(m in zh for m in SURVEY_ZH) or bool(SURVEY_EN.search(lower) or SURVEY_ZH_END.search(zh))
    headed = bare or heading(zh, lower, found) or alone(zh, lower, found)
    what = not (asks_list or headed or asks_about(zh, lower))
    if what and (not asks_what(zh, lower) or all(t.person for t in found) or _saying(zh, found)):
        return None  # 颜回怎么死的: one story; 孟子说民为贵是什么意思: one saying
    more = qualified(zh, lower, found)
    if what and more:
        return None  # what it is or how it is done (什么是仁, 孔子怎样教学生) asks only when that is all it says
    if more and not (asks_list or headed or governs(zh, lower, found)):
        return None  # "孔子平时很少讲利" in a translation, "论笃是与，君子者乎": the theme in passing
    # a question that says no more than its theme ranks the theme's passages first, list or not; one
    # that says more ("哪几首写男女相思的诗", "Mencius on war and Yan", "friends who lie") fuses
    # the theme as one more route, so its other words choose
    corpus = book_hint(query)
    across = "," in corpus or (corpus == "all" and bool(CANON.search(f"{zh} {lower}")))
    words = tuple(w for t in found for w in t.zh if w in zh)
    return TopicQuery(tuple(found), not more, corpus, asks_list, across, words)


def _subjects(folder: Path | None, texts: dict[str, str]) -> SubjectIndex | None:
    """The subject index in `folder`; a damaged file is logged and the themes serve without it."""
    if folder is None:
        return None
    try:
        return SubjectIndex.load(folder, texts)
    except SubjectError as exc:
        log.warning("subjects_unreadable", reason=str(exc), hint="restore data/themes/subjects")
        return None


def _theme(subject: Subject) -> Theme:
    """A subject of the index as a theme: its name as the question has it, its passages."""
    en = re.compile(r"\b" + re.escape(subject.en) + r"\b") if subject.en else None
    sayings = frozenset(subject.zh) if subject.saying else frozenset()
    return Theme(subject.zh[0] if subject.zh else subject.en, subject.zh, en, subject.ids, sayings=sayings)


# a short aside in brackets restates, it does not narrow: "Loyalty and reciprocity (zhong and shu) in the
# Analects" asks what "Loyalty and reciprocity in the Analects" asks
_ASIDE = re.compile(r"\s*\((?:\s*[\w'-]+){1,4}\s*\)")


def _named(themes: list[Theme], zh: str, lower: str) -> list[Theme]:
    """The themes the question names, a word inside another theme's longer word not counted ("study
    poetry" names the Songs, not learning; "funeral rites" mourning, not the rites)."""
    spans: list[tuple[int, int, int, Theme]] = []  # (text, start, end, theme); text 0 = zh, 1 = lower
    for theme in themes:
        for w in (w for w in theme.zh if w in zh):  # a substring test first: most questions name no theme
            spans += [(0, m.start(), m.start() + len(w), theme) for m in re.finditer(re.escape(w), zh)]
        if theme.en is not None and theme.en.search(lower):
            spans += [(1, m.start(), m.end(), theme) for m in theme.en.finditer(lower)]

    def inside(a: tuple[int, int, int, Theme]) -> bool:
        return any(
            b[3] is not a[3] and b[0] == a[0] and b[1] <= a[1] and a[2] <= b[2] and b[2] - b[1] > a[2] - a[1]
            for b in spans
        )

    kept = [s for s in spans if not inside(s)]
    # "what does the Analects teach about learning": a verb of saying ("teach", "judging") names its own
    # theme only when it is all the question names ("How did Confucius teach?")
    said = [s for s in kept if s[0] == 1 and ABOUT_EN.fullmatch(lower[s[1] : s[2]])]
    named = {id(s[3]) for s in kept}
    verbs = {id(s[3]) for s in said} - {id(s[3]) for s in kept if s not in said}
    named = named - verbs or named
    return [t for t in themes if id(t) in named]


def _saying(zh: str, themes: list[Theme]) -> bool:
    """True when the question names a theme by a line's words (民为贵, 过犹不及): it asks about the saying."""
    return any(w in zh for t in themes for w in t.sayings)


def _pair(word: str, words: tuple[str, ...]) -> tuple[str, ...]:
    """The halves of a pair named as one word (义和利, 贫与富; 义利 where the theme also says 义和利), else ()."""
    if pair := _PAIR.fullmatch(word):
        return pair.groups()
    return tuple(word) if len(word) == 2 and f"{word[0]}和{word[1]}" in words else ()


def _holding(word: str, pair: tuple[str, ...], ids: list[str], texts: dict[str, str]) -> frozenset[str]:
    """The passages of `ids` whose text has the word, or both halves of the pair it names (`_pair`)."""
    parts = pair or (word,)
    return frozenset(pid for pid in ids if all(part in texts[pid] for part in parts))


def _paired(theme: Theme, words: tuple[str, ...]) -> frozenset[str]:
    """The theme's passages whose text has each of two or more of its words the question names (君子和小人,
    not 孝顺父母: 孝顺 is in no passage), or both halves of a pair it names as one word (义和利: 义 and 利);
    none when it names fewer (a word inside another counts once)."""
    held = dict(theme.holds)
    named = {w for w in words if w in held and not any(w != o and w in o for o in words)}
    pairs = len(named) > 1 or any(_pair(w, theme.zh) for w in named)
    return frozenset.intersection(*(held[w] for w in named)) if pairs else frozenset()


def _halves(
    name: str, names: frozenset[str], ids: list[str], texts: dict[str, str]
) -> tuple[tuple[str, frozenset[str]], ...]:
    """A theme named by two persons' names (尧舜: 尧 and 舜): each name and the theme's passages (`ids`)
    whose text names him and not the other; none for any other theme."""
    for cut in range(1, len(name)):
        one, other = name[:cut], name[cut:]
        if one in names and other in names:
            return tuple(
                (a, frozenset(pid for pid in ids if a in texts[pid] and b not in texts[pid]))
                for a, b in ((one, other), (other, one))
            )
    return ()


def _half(theme: Theme, words: tuple[str, ...]) -> frozenset[str]:
    """Asked by one of the two (孟子怎么讲舜, 大舜的孝), not by the pair: the passages about him alone."""
    named = [ids for half, ids in theme.halves if any(half in w for w in words if w != theme.name)]
    return named[0] if len(named) == 1 and theme.name not in words else frozenset()


def _in(pid: str, corpus: str) -> bool:
    return corpus == "all" or pid.split(":", 1)[0] in books_in(corpus)


def _rows(text: str) -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _split(cell: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in cell.split(",") if w.strip())


def _english(words: tuple[str, ...]) -> re.Pattern | None:
    if not words:
        return None
    ordered = sorted(words, key=len, reverse=True)  # "filial piety" before "filial"
    parts = [re.escape(w).replace(r"\*", r"\w*") for w in ordered]  # "examin* oneself", "satire*"
    return re.compile(r"\b(?:" + "|".join(parts) + r")\b")
