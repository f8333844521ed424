"""Topic questions on a subject no theme file lists: 孟子怎么评价伯夷和柳下惠, 孔子对管仲的看法, "What does
Mencius say about Confucius?", "How is Guan Zhong judged by Confucius and Mencius?".

Such a question has the form of a topic question (it asks about something: 怎么看, 评价, 论, "say about";
or for a list: 哪些, "which passages") but names no theme (core/retrieval/themes.py). Its subject is
what is left once the question's scaffold and the speaker are set aside: the words of the books it
names (伯夷, 柳下惠, 管仲; an English name through the glossary). The passages about a subject name it,
and name it more often, than those that touch it in passing: of the books asked, the passages holding
more of the subject's words, then more occurrences of them, come first (then fused order), which is a
survey by the texts' own density, not a list written by hand. A subject longer than a few words is a
description (a paraphrase), not a subject: the question then ranks as any question.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.books import books_in
from core.language.text import has_cjk, squash, to_simplified
from core.retrieval.glossary import expand_english
from core.retrieval.keyword import is_modern_question, strip_question_words
from core.retrieval.named_books import book_hint, without_titles
from core.retrieval.topic_forms import BOOKS_ZH, SURVEY_EN, SURVEY_ZH, SURVEY_ZH_END, asks_about, unsaid, untitled

MAX_TERMS = 3  # more words than this describe one passage (a paraphrase), not a subject
MAX_CHARS = 8
_JOINS_ZH = re.compile(r"[^\u4e00-\u9fff]+|和|与|及|、|跟|以及|或")
# a heading: a speaker or book, then a marker of what he said (孟子论伯夷, 孔子谈天, 孔子眼中的管仲)
_HEADING_ZH = re.compile(f"^(?:{'|'.join(BOOKS_ZH)})(?:论|谈|讲|说|的|中的|里的|眼中的|眼里的)")
_SPEAKERS_ZH = frozenset(b for b in BOOKS_ZH if b != "《》") | {"孔夫子", "孟夫子", "书", "书中", "书里", "里", "中"}
# the object of an English view: "what does Mencius say about X", "Confucius on X", "how is X judged"
_SPEAKER_EN = (
    r"(?:the\s+)?(?:confucius|mencius|mengzi|kongzi|the master|master|analects|mean|great learning|book of \w+)"
)
_OBJECT_EN = re.compile(
    r"^\W*(?:what|how|did|does|do)\b[\w\s']*?\b(?:say|said|says|think|thought|teach|taught|write|wrote|feel|felt"
    r"|speak|spoke|talk|talked)\s+(?:about|of|on|regarding|concerning)\s+(?P<obj>[\w\s'-]+?)\s*[?.!]*$"
    rf"|^\W*{_SPEAKER_EN}(?:'s|’s)?\s+(?:views?\s+|teachings?\s+|sayings?\s+)?(?:on|about|regarding|concerning)\s+"
    r"(?P<head>[\w\s'-]+?)\s*[?.!]*$"
    r"|^\W*how\s+(?:is|are|was|were|does|did|do)\s+(?P<subj>[\w\s'-]+?)\s+(?:judged|described|seen|viewed|regarded"
    r"|portrayed|praised|criticized|criticised|treated|evaluated|assessed)\b"
)
# names the glossary leaves out on purpose (the implied speaker of most questions) are a subject when
# they are the object of the view ("What does Mencius say about Confucius?")
_NAMES_EN = {"confucius": ("孔子", "仲尼"), "kongzi": ("孔子", "仲尼"), "mencius": ("孟子",), "mengzi": ("孟子",)}


@dataclass(frozen=True)
class Subject:
    """A topic question's subject: its words and the books it asks about."""

    terms: tuple[str, ...]
    corpus: str


class SubjectIndex:
    """Occurrences of a subject's words in the passages' texts: a few `str.find` over the texts joined."""

    def __init__(self, texts: list[tuple[str, str]], titles: Iterable[str] = ()):
        self._titles = frozenset(titles)  # a title names its passage: 诗经里的伐木讲了什么 is a title question
        self._ids = [pid for pid, _ in texts]
        squashed = [squash(text) for _, text in texts]
        self._starts = list(itertools.accumulate((len(t) + 1 for t in squashed), initial=0))
        self._joined = "\0".join(squashed)

    def subject(self, query: str) -> Subject | None:
        """The subject of a topic-shaped question, or None when it has no short subject."""
        zh, lower = without_titles(to_simplified(query)), without_titles(query.lower())
        if has_cjk(zh):
            if not (is_modern_question(zh) or _HEADING_ZH.match(zh)) or not _asks(zh, lower):
                return None
            chunks = [c for c in _JOINS_ZH.split(unsaid(strip_question_words(untitled(zh)))) if c]
            chunks = [c for c in chunks if c not in _SPEAKERS_ZH]
            if sum(map(len, chunks)) > MAX_CHARS or self._titled(query, zh, chunks):
                return None
            found = [t for c in chunks for t in self._segments(c)]
            if sum(map(len, found)) < sum(map(len, chunks)) - 1:
                return None  # 在陈国断粮时: words the books do not hold describe a story, not a subject
        else:
            if not _asks(zh, lower):
                return None
            text = lower.strip()
            m = _OBJECT_EN.search(text)
            group = next((g for g in ("obj", "head", "subj") if m is not None and m.group(g)), None)
            if m is None or group is None:
                return None
            phrase = m.group(group).strip()
            phrase = re.sub(r"^(?:the|a|an)\s+", "", phrase)
            if len(phrase.split()) > 4:
                return None  # "on the islet in the river": a description
            words = [w for w in re.split(r"\s+(?:and|or)\s+|,\s*", phrase) if w]
            found = [t for w in words for t in _NAMES_EN.get(w.strip(), ())]
            short = len(phrase.split()) <= 2  # "on death": its one character (死) is the subject
            found += [t for t in expand_english(phrase).split() if (short or len(t) > 1) and t in self._joined]
            speaker = text[: m.start(group)] + text[m.end(group) :]
        terms = tuple(dict.fromkeys(t for t in found if not t.startswith("之")))  # 之 begins no word
        if not 0 < len(terms) <= MAX_TERMS or any(t in self._titles for t in terms):
            return None
        if has_cjk(zh):
            speaker = zh
            for term in terms:
                speaker = speaker.replace(term, " ")
        # the books of the speaker, not of the subject: "What does Mencius say about Confucius?" keeps to 孟子
        corpus = book_hint(speaker)
        return Subject(terms, book_hint(query) if corpus == "all" else corpus)

    def ranking(self, subject: Subject, corpus: str = "all", fused: Sequence[str] = ()) -> list[tuple[str, float]]:
        """(id, score) of the passages of the books asked holding a subject word: more distinct words
        first, then more occurrences of them, then in `fused` order (the routes' ranks)."""
        terms, books = subject.terms, set(books_in(subject.corpus)) & set(books_in(corpus))
        distinct: dict[str, set[str]] = {}
        count: dict[str, int] = {}
        for term in terms:
            at = self._joined.find(term)
            while at >= 0:
                pid = self._ids[bisect.bisect_right(self._starts, at) - 1]
                if pid.split(":", 1)[0] in books:
                    distinct.setdefault(pid, set()).add(term)
                    count[pid] = count.get(pid, 0) + 1
                at = self._joined.find(term, at + len(term))
        scored = {pid: len(held) + min(count[pid], 9) / 10 for pid, held in distinct.items()}
        place = {pid: i for i, pid in enumerate(fused)}
        return sorted(scored.items(), key=lambda kv: (-kv[1], place.get(kv[0], len(place))))

    def _titled(self, query: str, zh: str, chunks: list[str]) -> bool:
        """True when the question names a poem by its title (诗经里的江有汜讲了什么, 《丘中有麻》写的是什么):
        a title question, not a subject."""
        if any(c in self._titles for c in chunks):
            return True
        if "《" not in query and book_hint(query) != "shijing":
            return False
        return any(len(t) > 1 and t in zh for t in self._titles)

    def _segments(self, chunk: str) -> list[str]:
        """The longest runs of two or more characters of `chunk` that the books hold, left to right;
        a chunk of one character is a word (孔子论天)."""
        if len(chunk) == 1:
            return [chunk] if chunk in self._joined else []
        out, i = [], 0
        while i < len(chunk) - 1:
            for j in range(len(chunk), i + 1, -1):
                if self._joined.find(chunk[i:j]) >= 0:
                    out.append(chunk[i:j])
                    i = j
                    break
            else:
                i += 1
        return out


def _asks(zh: str, lower: str) -> bool:
    """The form of a topic question: it asks about something or for a list of passages."""
    listing = any(m in zh for m in SURVEY_ZH) or bool(SURVEY_EN.search(lower) or SURVEY_ZH_END.search(zh))
    return listing or asks_about(zh, lower)
