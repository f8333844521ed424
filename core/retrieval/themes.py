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

from core.books import books_in
from core.language.text import cjk_count, has_cjk, squash, to_simplified
from core.retrieval.keyword import is_modern_question
from core.retrieval.named_books import (
    ANALECTS_ZH,
    GOVERN_ZH_STRICT,
    MARKERS,
    SONGS_ZH,
    book_hint,
    without_titles,
)

__all__ = ["Theme", "ThemeIndex", "TopicQuery", "book_hint"]

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
    r"\b(about|on|regarding|concerning|views?|think|thought|opinions?|regard\w*|teach\w*|said|say|says|sayings?"
    r"|describ\w*|judg\w*|essence|prais\w*|assess\w*|evaluat\w*|discuss\w*|spoke|speak\w*)\b"
)
GOVERN_EN = r"\b(?:about|on|regarding|concerning|essence of|concept of|idea of|opinions? of|thought of|think of|views? of)\s+(?:[\w'-]+\s+){0,2}?"
GOVERN_ZH = "|".join(map(re.escape, (*ABOUT_ZH, "对", "有关", "涉及")))
VIEW_ZH = "看法|观点|主张|论述|态度|思想|言论|说法|评价"


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
    across: bool = False  # names several books or the canon (孟子和孔子, 四书, 儒家): the books in turn

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
        zh, lower = without_titles(to_simplified(query)), without_titles(query.lower())
        found = _named(self.themes, zh, lower)
        bare = BARE_ZH.match(zh)  # 孟子论义, 中庸的诚: a book, a marker and a theme's one-character name
        if bare:
            found = [t for t in self.themes if t.name == bare.group(1)] or found
        if not found:
            return None
        asks_list = any(m in zh for m in SURVEY_ZH) or bool(SURVEY_EN.search(lower) or SURVEY_ZH_END.search(zh))
        heading = bool(bare) or _heading(zh, lower, found)
        untitled = zh.replace("论语", "《》")  # 论语 is no 论 (on …)
        if not (asks_list or heading or any(m in untitled for m in ABOUT_ZH) or ABOUT_EN.search(lower)):
            return None
        qualified = _qualified(zh, lower, found)
        if qualified and not (asks_list or heading or _governs(untitled, lower, found)):
            return None  # "孔子平时很少讲利" in a translation, "论笃是与，君子者乎": the theme in passing
        # a question that says no more than its theme ranks the theme's passages first, list or not; one
        # that says more ("哪几首写男女相思的诗", "Mencius on war and Yan", "friends who lie") fuses
        # the theme as one more route, so its other words choose
        corpus = book_hint(query)
        across = "," in corpus or (corpus == "all" and bool(CANON.search(f"{zh} {lower}")))
        return TopicQuery(tuple(found), not qualified, corpus, asks_list, across)

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


# A heading names its theme as the head of a noun phrase: 孔子的教育方法, 孟子的仁政, 孔子眼中的颜回,
# 诗经中的爱情诗 (a book or speaker before, the theme last, a general head noun after it); "Friendship in the
# Analects", "Mencius and human nature", "Hermits who mocked Confucius" (the theme first, a modifier after)
CANON = re.compile(r"四书|儒家|经典|\bconfucian\w*|\bfour books\b|\bclassics\b")
BOOKS_ZH = ("论语", "孔子", "夫子", "孟子", "孟轲", "诗经", "《》", "大学", "中庸", "儒家", "四书", "先秦")
HEADS_ZH = (
    "思想|方法|之道|观念|理念|学说|主张|观点|看法|理论|故事|事迹|言论|论述|段落|章节|篇章|名言|诗歌|诗篇|诗|观|论"
    "|体现|地位|含义|意义|内涵|作用"
)
HEAD_ZH = f"(?:的)?(?:{HEADS_ZH})?"
BARE_ZH = re.compile(f"^(?:{'|'.join(BOOKS_ZH)})(?:论|谈|讲|说|的|中的|里的)(\\w)" + r"[\s？?。！!]*$")
KIN_ZH = ("父母", "朋友", "友人")  # kin and friends: 孔子的朋友 names people, not a theme
PREFIX_ZH = re.compile(r"(?:的|与|和|及|同|对|里|中)$")
ASKS_ZH = re.compile("什么|怎么|怎样|如何|为什么|谁|哪|吗|呢|几")
BOOKS_EN = (
    r"confucius|mencius|mengzi|kongzi|master|analects|book|songs|odes|poetry|shijing|classics?|confucian\w*|four|books"
)
HEADS_EN = r"philosophy|thought|ideas?|views?|teachings?|doctrines?|theory|methods?|character|role|place|importance|meaning|concept"
LEAD_EN = re.compile(  # "Confucius's favourite disciple Yan Hui": a book, a speaker or a kind of person before
    r"^\W*(?:(?:the|on|and|s|of|as|a|an|disciples?|students?|favou?rite|" + HEADS_EN + "|" + BOOKS_EN + r")\b\W*)*$"
)
VERB_EN = re.compile(r"\b(?:is|are|was|were|be|been|am|do|does|did|can|could|should|would|will|must|may|might)\b")
MODIFIER_EN = re.compile(
    r"^(?:'s|’s)?(?:\s+[a-z]+)?\s*(?:$|[,:;?.!]|(?:in|of|and|or|who|that|which|according|for|on|as|between|versus|vs|among|with"
    r"|without|toward|towards|by|from|during|" + HEADS_EN + r")\b)"
)


def _heading(zh: str, lower: str, themes: list[Theme]) -> bool:
    """True when the question is a noun phrase whose head is a theme (the theme alone is not one)."""
    if has_cjk(zh):
        end = r"[\s？?。！!]*$"
        for w in (w for t in themes for w in t.zh if w in zh):
            if re.match(f"{re.escape(w)}(?:在|于)?(?:{'|'.join(BOOKS_ZH)})(?:中|里|上)?{HEAD_ZH}{end}", zh):
                return True  # 礼在论语中的地位: the theme first, then where and what of it
            m = re.search(f"{re.escape(w)}{HEAD_ZH}{end}", zh)
            before = zh[: m.start()] if m else ""
            if (
                m is not None
                and any(b in before for b in BOOKS_ZH)
                and cjk_count(re.sub("|".join(map(re.escape, BOOKS_ZH + _ZH_SCAFFOLD)), "", before)) <= 3
                and not ASKS_ZH.search(before)
                and (PREFIX_ZH.search(before) or before in BOOKS_ZH)
                and not (  # 孔子的父母: his parents; 论语中的朋友, 孔子的朋友观: the theme
                    w in KIN_ZH
                    and before.endswith("的")
                    and not before.endswith(("中的", "里的"))
                    and not zh[m.start() + len(w) :].strip(" ？?。！!")
                )
            ):
                return True
        return False
    for en in (t.en for t in themes if t.en is not None):
        m = en.search(lower)
        if m is None or not LEAD_EN.match(lower[: m.start()]):
            continue
        rest = lower[m.end() :]  # a modifier, not a predicate: "who mocked Confucius", not "is useless"
        content = [w for w in re.findall(r"[a-z]+", en.sub(" ", rest)) if w not in _EN_SCAFFOLD]
        if MODIFIER_EN.match(rest) and not VERB_EN.search(rest) and len(content) <= 3:
            if lower[: m.start()].strip(" .?!'") or rest.strip(" .?!"):  # the theme alone is a name query
                return True
    return False


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
    words |= set(HEADS_ZH.split("|")) - {"方法"}  # 孔子的交友之道, 颜回的故事: the kind of statement, nothing more
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
    "relation relations relationship attitude attitudes idea ideas confucian confucianism four books s opinion opinions "
    "regard regarded regards philosophy doctrine doctrines theory teachings importance role place meaning concept "
    "notion character as disciple disciples student students favourite favorite".split()
)
# question words and particles; the kinds of passage (章节, 句子, 话); the canon as a whole, like a book's
# name (儒家经典, 四书); the kind of statement asked for, not a narrower subject (原则, 区别, 思想); each
# book's (论语和孟子分别怎么讲孝); how a speaker saw someone (孔子眼中的颜回)
_ZH_SCAFFOLD = tuple(
    "什么 怎么 怎样 如何 有 对 的 吗 呢 了 是 和 与 里 中 上 哪些 章节 篇章 诗篇 篇 章 句子 话 首 诗歌 儒家经典 四书 儒家 "
    "经典 原则 区别 关系 思想 说法 言论 分别 各自 眼中 眼里 心目中 心中".split()
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
