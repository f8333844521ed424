"""Topic questions: a theme index over the five books and the rule that recognises a topic question.

The texts never say "love" or "war", so neither word overlap nor a small embedder can find a theme.
`data/themes/` holds which poems and passages belong to which theme (爱情, 战争, 孝, 仁 …), best known
first, written and reviewed from the standard commentaries (sources in each file's header; never
generated at run time), and the words that name each theme in Chinese and English questions.

A question that names a theme as its subject asks for a list ("诗经里有哪些写爱情的诗？", "Which
poems are love songs?") or about it ("孔子怎么看孝？", "What did Confucius say about music?"). One
that says no more than its theme is a *survey*: the theme's passages first, in the file's order (关雎
before 泽陂). One that says more ("friends *who lie*", 哪几首写男女相思的诗, "Mencius on war *and
Yan*") adds the theme as one more fused route (passages scored by their place in the list) and
keeps the gloss route, so its other words still choose; without a list it counts only when a marker
governs the theme (on/about X, 论X, 对X的态度), never in a classical line. A question naming 诗经/
poems/songs keeps to the Book of Songs, one naming 论语/Confucius/the Master to the Analects.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

from core.books import book_order, books_in
from core.language.text import cjk_count, has_cjk, squash, to_simplified
from core.retrieval.keyword import is_modern_question

SURVEY_ZH = (
    "哪些",
    "哪几",
    "哪首",
    "哪篇",
    "几首",
    "什么诗",
    "哪一些",
    "有没有写",
    "推荐",
    "举几",
    "举例",
    "列举",
    "例子",
)
ABOUT_ZH = (
    "怎么看",
    "如何看",
    "怎么说",
    "如何说",
    "怎么论",
    "如何论",
    "怎样看",
    "关于",
    "论述",
    "谈",
    "说过什么",
    "讲了什么",
    "看法",
    "观点",
    "主张",
    "论",
    "写",
    "描写",
    "表现",
    "反映",
    "讲",
    "主题",
    "题材",
    "称赞",
    "评价",
    "赞扬",
    "批评",
    "态度",
    "什么样的人",
    "歌颂",
    "赞美",
)
SURVEY_EN = re.compile(
    r"\b(which|what|any|some|list|name|recommend|examples?)\b[\w\s']{0,30}\b(poems?|songs?|odes?|passages?|pieces?|sayings?|verses?|ones)\b"
    r"|\b(poems?|songs?|odes?|passages?)\s+(about|on|of|that|which|describing|dealing)\b"
    r"|\b(?!(?:of|the|three|hundred|these|those)\b)[a-z]+\s+(poems|songs|odes)\b"  # "love poems": plural, a list
)
SURVEY_ZH_END = re.compile(r"的(?:诗|诗歌|诗篇|篇章|章节)[？?。！!\s]*$")  # 诗经里写农事的诗: a noun phrase, a list
ABOUT_EN = re.compile(
    r"\b(about|on|regarding|concerning|views?|think|teach\w*|said|say|says|sayings?|describ\w*|judg\w*|essence)\b"
)
GOVERN_EN = r"\b(?:about|on|regarding|concerning|essence of|concept of|idea of)\s+(?:[\w'-]+\s+){0,2}?"
GOVERN_ZH = "|".join(map(re.escape, (*ABOUT_ZH, "对", "有关", "涉及")))
GOVERN_ZH_STRICT = re.compile(r"^(?:孔子|孟子|夫子|论语|大学|中庸|诗经)?(?:论|谈|讲)")  # 孟子论…: a question
VIEW_ZH = "看法|观点|主张|论述|态度|思想|言论|说法|评价"
SONGS_ZH = ("诗经", "诗", "国风", "大雅", "小雅", "雅颂", "周颂", "鲁颂", "商颂")  # 典雅, 歌颂: no book
SONGS_EN = re.compile(r"\b(poems?|songs?|odes?|book of songs|book of poetry|shijing|shi jing|classic of poetry)\b")
ANALECTS_ZH = ("论语", "孔子", "夫子", "子曰")
ANALECTS_EN = re.compile(r"\b(analects|confucius|the master|kongzi|lunyu|sayings?)\b")
# "《诗经》说：…" in a retelling cites the passage's own source, and "the three hundred Odes" / 诗三百
# names the collection as a whole (what was said of it: 思无邪): neither asks for a poem
CITED = re.compile(r"《[^》]{1,10}》上?(?:说|云|曰)[：:，,]|《?诗》?三百(?:篇|首)?")
WHOLE_SONGS_EN = re.compile(r"\b(?:the )?three hundred (?:odes|poems|songs)\b")
ASKS_WHICH = re.compile(r"\bwhich\b|哪")
# 中庸 (the mean, a virtue the Analects names) names its book as a title or as a place (中庸里, 中庸
# 一书); 大学 (a university) as a title, or as 大学里 where nothing before it makes it a school
# (在大学里, 上大学里, 我们大学里)
_AS_BOOK = r"一书|这本书|书中|书里|篇|第[一二三四五六七八九十\d]|开篇|首章|原文"
MARKERS: dict[str, tuple[tuple[str, ...], re.Pattern]] = {
    "mengzi": (("孟子", "孟轲", "亚圣"), re.compile(r"\b(mencius|mengzi|meng zi|meng ke)\b")),
    "daxue": (
        ("《大学》", "大学之道", "大学章句", "礼记·大学"),
        re.compile(r"\b(great learning|daxue|da xue)\b|大学(?:" + _AS_BOOK + r")|(?<![在上读念们个的])大学里"),
    ),
    "zhongyong": (
        ("《中庸》", "中庸章句", "礼记·中庸"),
        re.compile(r"\b(doctrine of the mean|zhongyong|zhong yong)\b|中庸(?:" + _AS_BOOK + r"|里|中(?!的))"),
    ),
}


def book_hint(query: str) -> str:
    """The books a question names, as a selection: "shijing" for a poem/song/诗 question, "lunyu"
    for one naming Confucius, 论语 or 子曰, "mengzi", "daxue", "zhongyong" for theirs, several joined
    by commas ("lunyu,mengzi" for 孟子和孔子怎么看仁), else "all". Songs and Analects markers together
    name no book (a question about what Confucius said of the Songs). Only English and modern-Chinese
    questions name a book this way (a classical line with 诗 or 孟子 in it does not)."""
    zh, lower = to_simplified(query), query.lower()
    if has_cjk(zh) and not is_modern_question(zh):
        return "all"
    if not ASKS_WHICH.search(lower):  # "which of the three hundred odes …" still asks for a poem
        zh, lower = CITED.sub("", zh), WHOLE_SONGS_EN.sub("", lower)
    songs = any(w in zh for w in SONGS_ZH) or bool(SONGS_EN.search(lower))
    analects = any(w in zh for w in ANALECTS_ZH) or bool(ANALECTS_EN.search(lower))
    named = [b for b, (words, other) in MARKERS.items() if any(w in zh for w in words) or other.search(f"{zh} {lower}")]
    if songs != analects:
        named.insert(0, "shijing" if songs else "lunyu")
    elif analects and named:
        named.insert(0, "lunyu")
    return ",".join(sorted(named, key=book_order)) if named else "all"


@dataclass(frozen=True)
class Theme:
    """One theme: its name, the words that name it, and its passages best known first."""

    name: str
    zh: tuple[str, ...]
    en: re.Pattern | None
    ids: tuple[str, ...]


@dataclass(frozen=True)
class TopicQuery:
    """A recognised topic question: its themes, whether it asks for a list, the book it keeps to."""

    themes: tuple[Theme, ...]
    survey: bool  # says no more than its themes: their passages first, in the themes' order
    corpus: str  # the books the question names, a selection: "all", "lunyu", "lunyu,mengzi" …
    listing: bool = False  # asks for a list: the theme's passages first, in fused order when qualified

    @property
    def qualified(self) -> bool:
        """Says more than its themes: the gloss route still runs, the themes are one fused route."""
        return not self.survey


class ThemeIndex:
    """Themes over the passages; `recognise(query)` and `ranking(topic)`."""

    def __init__(self, themes: list[Theme]):
        self.themes = [t for t in themes if t.ids]

    @classmethod
    def load(cls, passages: Iterable[tuple[str, str, str, str]]) -> ThemeIndex:
        """Resolve `data/themes/*.tsv` against (id, corpus, text, title-with-section) tuples."""
        files = resources.files("data") / "themes"
        words = _rows(files.joinpath("words.tsv").read_text("utf-8"))
        songs = _rows(files.joinpath("shijing.tsv").read_text("utf-8"))
        analects = _rows(files.joinpath("lunyu.tsv").read_text("utf-8"))
        by_id = _rows(files.joinpath("sishu.tsv").read_text("utf-8"))  # 孟子, 大学, 中庸: named by id
        by_title: dict[str, list[str]] = {}
        analects_texts: list[tuple[str, str]] = []
        present: set[str] = set()
        for pid, corpus, text, title in passages:
            present.add(pid)
            if corpus == "shijing":
                section, _, name = title.rpartition("·")
                by_title.setdefault(name, []).append(pid)
                by_title.setdefault(f"{section}·{name}", []).append(pid)
                if section.endswith("之什"):
                    by_title.setdefault(f"小雅·{name}", []).append(pid)
            elif corpus == "lunyu":
                analects_texts.append((pid, squash(text)))
        containing = _Containing(analects_texts)
        themes = []
        for name, zh_words, en_words in words:
            ids: list[str] = []
            for row in (r for r in songs if r[0] == name):
                ids += [pid for title in row[1:] for pid in by_title.get(title, [])[:1]]
            for row in (r for r in analects if r[0] == name):
                for snippet in row[1:]:
                    ids += containing(squash(snippet))
            for row in (r for r in by_id if r[0] == name):
                ids += [pid for pid in row[1:] if pid in present]
            themes.append(Theme(name, _split(zh_words), _english(_split(en_words)), tuple(dict.fromkeys(ids))))
        return cls(themes)

    def recognise(self, query: str) -> TopicQuery | None:
        """The topic question `query` asks, or None when it names no theme (or names one in passing)."""
        zh, lower = _without_titles(to_simplified(query)), _without_titles(query.lower())
        found = _named(self.themes, zh, lower)
        if not found:
            return None
        asks_list = any(m in zh for m in SURVEY_ZH) or bool(SURVEY_EN.search(lower) or SURVEY_ZH_END.search(zh))
        if not asks_list and not (any(m in zh for m in ABOUT_ZH) or ABOUT_EN.search(lower)):
            return None
        qualified = _qualified(zh, lower, found)
        if qualified and not asks_list and not _governs(zh, lower, found):
            return None  # "孔子平时很少讲利" in a translation, "论笃是与，君子者乎": the theme in passing
        # a question that says no more than its theme ranks the theme's passages first, list or not; one
        # that says more ("哪几首写男女相思的诗", "Mencius on war and Yan", "friends who lie") fuses
        # the theme as one more route, so its other words choose
        return TopicQuery(tuple(found), not qualified, book_hint(query), asks_list)

    @staticmethod
    def ranking(topic: TopicQuery, corpus: str = "all") -> list[tuple[str, float]]:
        """(id, score) of the topic's passages, best first: a passage scores 1 − rank/len in each of
        its themes, summed (a passage in two asked themes beats one in a single theme)."""
        scores: dict[str, float] = {}
        for theme in topic.themes:
            n = len(theme.ids)
            for rank, pid in enumerate(theme.ids):
                if _in(pid, topic.corpus) and _in(pid, corpus):
                    scores[pid] = scores.get(pid, 0.0) + 1.0 - rank / n
        return sorted(scores.items(), key=lambda kv: -kv[1])


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

    named = {id(s[3]) for s in spans if not inside(s)}
    return [t for t in themes if id(t) in named]


def _without_titles(text: str) -> str:
    """`text` less the names of 大学 and 中庸 as books: "the Doctrine of the Mean" asks no theme."""
    for book in ("daxue", "zhongyong"):
        words, other = MARKERS[book]
        for w in words:
            text = text.replace(w, " ")
        text = other.sub(" ", text)
    return text


def _governs(zh: str, lower: str, themes: list[Theme]) -> bool:
    """True when a modern or English question makes a theme its subject: a marker right before it
    ("on war and Yan", "about friends who lie", 孟子论性善, 关于井田制…的主张) or a
    view of it after it (对鬼神…的态度). A classical line never does."""
    if has_cjk(zh) and not is_modern_question(zh) and not GOVERN_ZH_STRICT.search(zh):
        return False
    for theme in themes:
        if theme.en is not None and re.search(GOVERN_EN + theme.en.pattern, lower):
            return True
        words = "|".join(map(re.escape, theme.zh))
        if words and re.search(f"(?:{GOVERN_ZH})" + r"\W?.{0,2}?(?:" + words + ")", zh):
            return True
        if words and re.search("(?:" + words + r").{0,6}?的?(?:" + VIEW_ZH + ")", zh):
            return True
    return False


def _qualified(zh: str, lower: str, themes: list[Theme]) -> bool:
    """True when the question says more than its theme ("friends *who lie*", "the poem about *a
    peach tree*"): it asks about one passage, not the theme as a whole, so it is no topic question."""
    rest_en = lower
    for theme in themes:
        if theme.en is not None:
            rest_en = theme.en.sub(" ", rest_en)
    content = [w for w in re.findall(r"[a-z]+", rest_en) if w not in _EN_SCAFFOLD]
    # one leftmost-longest pass (not word by word: 讽刺诗 must lose 讽刺, not 刺诗, whatever the order)
    words = {w for t in themes for w in t.zh} | set(SURVEY_ZH + ABOUT_ZH + SONGS_ZH + ANALECTS_ZH + _ZH_SCAFFOLD)
    words |= {w.strip("《》") for ws, _ in MARKERS.values() for w in ws}  # the book it names says nothing more
    pattern = "|".join(map(re.escape, sorted(words, key=lambda w: (-len(w), w))))
    rest_zh = re.sub(pattern, "", zh)
    return bool(content) or cjk_count(rest_zh) >= 2


_EN_SCAFFOLD = frozenset(
    "what which who whom how why when where did does do is are was were the a an of on about in to and or "
    "for with his her their its he she it they say says said saying sayings think thinks thought teach teaches "
    "taught teaching view views confucius master analects kongzi book songs odes poetry classics classic "
    "shijing lunyu tell me us please anything something any some there according poem poems song songs ode "
    "odes passage passages piece pieces verse verses list name recommend example examples famous describe "
    "describes describing written write writes express expresses show shows talk talks ones that be sung sing "
    "at complaint complaints lament laments genre kind kinds mencius mengzi judge judged judges judging being principle principles difference differences "
    "relation relations relationship attitude attitudes idea ideas confucian confucianism four books".split()
)
_ZH_SCAFFOLD = (
    "什么",
    "怎么",
    "怎样",
    "如何",
    "有",
    "对",
    "的",
    "吗",
    "呢",
    "了",
    "是",
    "和",
    "与",
    "里",
    "中",
    "上",
    "哪些",
    "章节",
    "篇章",
    "诗篇",
    "篇",
    "章",
    "句子",
    "话",
    "首",
    "诗歌",
    "儒家经典",  # the canon as a whole, like a book's name
    "四书",
    "儒家",
    "经典",
    "原则",  # the kind of statement asked for, not a narrower subject
    "区别",
    "关系",
    "思想",
    "说法",
    "言论",
)


class _Containing:
    """The ids of the (id, squashed text) pairs whose text contains a key, in their order: a few
    `str.find` over the texts joined (squashed text holds no NUL), not a scan of every text per key."""

    def __init__(self, texts: list[tuple[str, str]]):
        self._ids = [pid for pid, _ in texts]
        self._starts = list(itertools.accumulate((len(text) + 1 for _, text in texts), initial=0))
        self._joined = "\0".join(text for _, text in texts)

    def __call__(self, key: str) -> list[str]:
        if not key:
            return list(self._ids)
        found, at = [], self._joined.find(key)
        while at >= 0:
            n = bisect.bisect_right(self._starts, at) - 1
            found.append(self._ids[n])
            at = self._joined.find(key, self._starts[n + 1])
        return found


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
