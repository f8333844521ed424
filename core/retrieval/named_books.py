"""The books a question names: 诗经/poems keeps to the Book of Songs, 论语/Confucius to the Analects,
孟子/Mencius to the Mencius; 中庸 and 大学 name their books as titles, places or in a list of titles
(中庸里, 大学一书, 论语、中庸和孟子), not as the virtue or a university (core/retrieval/themes.py asks)."""

from __future__ import annotations

import re

from core.books import book_order
from core.language.text import cjk_count, has_cjk, to_simplified
from core.retrieval.keyword import is_modern_question, without_question_words

GOVERN_ZH_STRICT = re.compile(r"^(?:孔子|孟子|夫子|论语|大学|中庸|诗经)?(?:论(?!语)|谈|讲)")  # 孟子论…: a question
# 论语 仁, 大学 三纲领: a book, then search terms
BOOK_TERMS_ZH = re.compile(r"^《?(?:孔子|孟子|论语|诗经|大学|中庸)》?\s+\S")

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
# opening a question and followed by a verb of saying (中庸讲的诚, 大学说修身): the book speaks; the
# virtue and a university are spoken of
_SPEAKS = r"(?:讲|谈|论(?!语)|说|提到|认为|主张|所讲|所说|所谈)"


# Confucius spoken of by Mencius (孟子怎么评价孔子, 孟子眼中的孔子, "What does Mencius say about Confucius?"): the
# Mencius is the book asked and 孔子 what it is asked about, not the Analects' speaker
_OF_CONFUCIUS_ZH = re.compile(
    r"孟子.*(?:评价|看待?|说|论|谈|讲|眼中的|心目中的|称赞|推崇|描述|形容|笔下的)(?:过|了)?孔子"
)
_OF_CONFUCIUS_EN = re.compile(
    r"\bmencius\b.*\b(?:about|on|of|portrays?|portrayal|describes?|praises?|judges?|sees?|views?|regards?)\s+confucius\b"
)


def of_confucius(zh: str, lower: str) -> bool:
    """True when the question asks what Mencius says of Confucius (not what each says: 孟子和孔子怎么看仁)."""
    return bool(_OF_CONFUCIUS_ZH.search(zh) or _OF_CONFUCIUS_EN.search(lower))


def _listed(title: str) -> str:
    """`title` in a list of the books' titles (论语、中庸、大学和孟子): a title, whatever follows."""
    others = [t for t in ("论语", "孟子", "大学", "中庸", "诗经") if t != title]
    return "|".join([f"(?<={t}[、和与及]){title}" for t in others] + [f"{title}(?=[、和与及](?:{'|'.join(others)}))"])


MARKERS: dict[str, tuple[tuple[str, ...], re.Pattern]] = {
    "mengzi": (("孟子", "孟轲", "亚圣"), re.compile(r"\b(mencius|mengzi|meng zi|meng ke)\b")),
    "daxue": (
        ("《大学》", "大学之道", "大学章句", "礼记·大学"),
        re.compile(
            r"\b(great learning|daxue|da xue)\b|大学(?:"
            + _AS_BOOK
            + r")|(?<![在上读念们个的])大学里|^《?大学》?\s+(?=\S)|^《?大学》?"
            + _SPEAKS
            + "|"
            + _listed("大学")
        ),
    ),
    "zhongyong": (
        ("《中庸》", "中庸章句", "礼记·中庸"),
        re.compile(
            r"\b(doctrine of the mean|zhongyong|zhong yong)\b|中庸(?:"
            + _AS_BOOK
            + r"|里|中(?!的))|^《?中庸》?\s+(?=\S)|^《?中庸》?"
            + _SPEAKS
            + "|"
            + _listed("中庸")
        ),
    ),
}


def book_hint(query: str) -> str:
    """The books a question names, as a selection: "shijing" for a poem/song/诗 question, "lunyu"
    for one naming Confucius, 论语 or 子曰, "mengzi", "daxue", "zhongyong" for theirs, several joined
    by commas ("lunyu,mengzi" for 孟子和孔子怎么看仁), else "all". Songs and Analects markers together
    name no book (a question about what Confucius said of the Songs). Only English and modern-Chinese
    questions name a book this way, those opening with a speaker and 论/谈/讲 (孟子论君臣关系) and a
    book's name then search terms (孟子 性善论); a classical line with 诗 or 孟子 in it does not."""
    zh, lower = to_simplified(query), query.lower()
    if has_cjk(zh) and not (is_modern_question(zh) or GOVERN_ZH_STRICT.search(zh) or BOOK_TERMS_ZH.match(zh)):
        return "all"
    if not ASKS_WHICH.search(lower):  # "which of the three hundred odes …" still asks for a poem
        zh, lower = CITED.sub("", zh), WHOLE_SONGS_EN.sub("", lower)
    songs = any(w in zh for w in SONGS_ZH) or bool(SONGS_EN.search(lower))
    analects = (any(w in zh for w in ANALECTS_ZH) or bool(ANALECTS_EN.search(lower))) and not of_confucius(zh, lower)
    named = [b for b, (words, other) in MARKERS.items() if any(w in zh for w in words) or other.search(f"{zh} {lower}")]
    if songs != analects:
        named.insert(0, "shijing" if songs else "lunyu")
    elif analects and named:
        named.insert(0, "lunyu")
    return ",".join(sorted(named, key=book_order)) if named else "all"


def without_titles(text: str) -> str:
    """`text` less the names of 大学 and 中庸 as books: "the Doctrine of the Mean" asks no theme."""
    for book in ("daxue", "zhongyong"):
        words, other = MARKERS[book]
        for w in words:
            text = text.replace(w, " ")
        text = other.sub(" ", text)
    return text


def searched(query: str) -> str:
    """The words a modern question searches: 大学 and 中庸 named as books cut out, since the books it names
    are its scope (ordering.book_first), not words to match (《中庸》为什么把诚看得那么重 asks for 诚, not for
    the chapters that say 中庸); a quote (大学之道，在明明德) is searched whole."""
    zh = to_simplified(query)
    if not (has_cjk(zh) and is_modern_question(zh)) or (untitled := without_titles(zh)) == zh:
        return query
    cut = " ".join(untitled.split())  # 《大學》 too
    # 中庸 是什么 asks what the title names: searched whole
    return cut if cjk_count(without_question_words(cut)) >= 2 else query
