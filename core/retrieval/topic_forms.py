"""The forms of a topic question (core/retrieval/themes.py recognises one with them): what asks for a
list (哪些, "which poems"), what asks about a theme (怎么看, 论, "what did Confucius say about"), what
asks what a theme is or how it is practised (什么是仁, 孔子怎样教学生, "What is ren?", "How did
Confucius teach?", "according to Mencius"), a heading (孔子的教育思想, "Friendship in the Analects"), a
theme named alone (孝道, "Filial piety"), and what says more than a theme ("friends *who lie*")."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.language.text import cjk_count, has_cjk
from core.retrieval.keyword import is_modern_question
from core.retrieval.named_books import ANALECTS_ZH, GOVERN_ZH_STRICT, MARKERS, SONGS_ZH

if TYPE_CHECKING:
    from core.retrieval.themes import Theme

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
    "帮我找",  # a request for passages: 帮我找找论语里讲交友的话
    "找几",
    "找找",
)
ABOUT_ZH = (
    "怎么看待",
    "如何看待",
    "怎样看待",
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
    "说过些什么",
    "说了什么",
    "说了些什么",
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
    "相信",  # a stance asked yes or no: 孔子相信鬼神吗, 孟子反对战争吗
    "反对",
    "支持",
    "赞成",
    "看重",
    "讲究",
    "形容",  # 诗经里是怎么形容美女的
    "描述",
    "描绘",
    "喜欢",  # 孔子喜欢音乐吗: a stance, like 相信
    "建议",  # advice, teaching, warning: 孟子对读书学习有什么建议
    "教导",
    "教诲",
    "告诫",
    "提到",
    "说到",
)
SURVEY_EN = re.compile(
    r"\b(which|what|any|some|list|name|recommend|examples?)\b[\w\s']{0,30}\b(poems?|songs?|odes?|passages?|pieces?|sayings?|verses?|ones)\b"
    r"|\b(poems?|songs?|odes?|passages?)\s+(about|on|of|that|which|describing|dealing)\b"
    r"|\b(?!(?:of|the|three|hundred|these|those)\b)[a-z]+\s+(poems|songs|odes)\b"  # "love poems": plural, a list
)
SURVEY_ZH_END = re.compile(r"的(?:诗|诗歌|诗篇|篇章|章节)[？?。！!\s]*$")  # 诗经里写农事的诗: a noun phrase, a list
ABOUT_EN = re.compile(
    r"\b(about|on|regarding|concerning|views?|think|thought|opinions?|regard\w*|teach\w*|said|say|says|sayings?"
    r"|describ\w*|judg\w*|essence|prais\w*|assess\w*|evaluat\w*|discuss\w*|spoke|speak\w*|believ\w*|oppos\w*"
    r"|advi[cs]e)\b"
)
GOVERN_EN = r"\b(?:about|on|regarding|concerning|essence of|concept of|idea of|opinions? of|thought of|think of|views? of)\s+(?:[\w'-]+\s+){0,2}?"
GOVERN_ZH = "|".join(map(re.escape, (*ABOUT_ZH, "对", "有关", "涉及")))
VIEW_ZH = "看法|观点|主张|论述|态度|思想|言论|说法|评价"
# What a theme is, what it means, how it is done or why it matters asks about it as surely as 怎么看
# does (什么是仁, 孝是什么意思, 如何理解礼, 孔子怎样教学生, 为什么要孝顺父母, 孔子重视礼, "What is ren?",
# "How did Confucius teach?", "according to Mencius"); only a question saying no more than its theme
# counts this way: 克己复礼是什么意思 says more (a saying) and stays a quote; of a person only a view
# counts (颜回怎么死的 asks for one story, 孔子怎么评价颜回 for the theme)
ASKS_WHAT_ZH = (
    "什么是",
    "什么叫",
    "何为",
    "何谓",
    "是什么",
    "指什么",
    "什么意思",
    "含义",
    "意思",
    "理解",
    "认识",
    "解释",
    "介绍",
    "说说",
    "聊聊",
    "重视",
    "强调",
    "提倡",
    "推崇",
    "怎样",
    "怎么",
    "如何",
    "为什么",
    "为何",
    "区别",
    "差在哪",
    "差别",
    "不同",
    "异同",
    "关系",
    "有什么",  # 孔子对说话有什么要求
    "怎么办",
    "吗",  # asked yes or no: 孔子信鬼神吗, 孔子想不想做官
    "想不想",
    "要不要",
    "该不该",
    "是不是",
    "会不会",
    "能不能",
)
ASKS_WHAT_EN = re.compile(
    r"\b(?:how|why|what(?:'s|\s+is|\s+are|\s+was|\s+were)|mean(?:s|ing|t)?|defin\w*|explain\w*|according\s+to"
    r"|tell\s+me|differ\w*|compar\w*)\b"
)
# A theme alone: its word, perhaps after a book (论语 仁, 论语中的仁), with 道/之道 and an aspect of it
# after (孝道, 交友之道, 孝的重要性, 孝的名言); in English after "the concept of", "the importance of" …, or
# several themes, a gloss in brackets ("Benevolence (ren)", "Friendship and music")
_ALONE_BOOK_ZH = re.compile("^(?:论语|孟子|孔子|夫子|诗经|四书|儒家)")  # 孔子的X is a heading() (孔子的父母)
_ALONE_PLACE_ZH = re.compile("^(?:中的|里的|里|中)")
_ALONE_TAIL_ZH = re.compile(
    r"(?:之?道)?(?:之情|之间(?:的关系)?|(?:的|之)?(?:含义|涵义|意义|内涵|本质|核心|重要性|作用|地位|价值|精神|思想|观念|定义|标准|要求|形象|原则"
    r"|名言|名句|语录|句子|段落|章节|论述|言论|区别|差别)|之(?:分|辨|别))?$"  # 义利之分, 义利之辨: the theme
)
_ALONE_EN = re.compile(
    r"^(?:(?:confucius|mencius|mengzi|the analects|analects)(?:'s|’s)?\s+)?(?:the\s+)?"
    r"(?:(?:concept|idea|notion|virtue|value|meaning|importance|role|essence|spirit|nature)\s+of\s+(?:the\s+)?)?"
)

_ALONE_REST_EN = re.compile(r"[\s(),&/-]*(?:(?:and|or)\b[\s(),&/-]*)*")


def alone(zh: str, lower: str, themes: Sequence[Theme]) -> bool:
    """True when the question is a theme's name and nothing more (孝, 孝道？, 交友之道, "Filial piety",
    "The concept of ren"): it asks for the theme, a survey. Not a person's name (颜回, 接舆: a name
    query) nor a line's words (民为贵, 过犹不及: a quote), and never a longer line: one character more
    (仁者寿, 学而, 里仁) is a saying, a title or a name."""
    text = re.sub(r"[\s“”‘’\"'「」『』？?。！!…]", "", zh)
    cores = {text}
    if book := _ALONE_BOOK_ZH.match(text):  # 论语 仁, 论语中的仁 (not 论语中庸: 中庸 is a theme)
        cores |= {text[book.end() :], _ALONE_PLACE_ZH.sub("", text[book.end() :])}
    cores |= {_ALONE_TAIL_ZH.sub("", core) for core in cores}  # 孝道 → 孝, but 王道 stays a word
    english = rest = _ALONE_EN.sub("", lower.strip(" \t?.!'\"“”"))
    for theme in themes:
        if any(core in theme.zh and core not in theme.names and core not in theme.sayings for core in cores):
            return True
        if theme.en is not None:  # a person's name stays: "Yan Hui" is a name query
            rest = theme.en.sub(functools.partial(_unless_name, theme.names), rest)
    return rest != english and bool(_ALONE_REST_EN.fullmatch(rest))


def _unless_name(names: frozenset[str], match: re.Match) -> str:
    return match.group(0) if match.group(0) in names else " "


def untitled(zh: str) -> str:
    """`zh` with 论语 set aside as 《》: its 论 is no marker (论X, on X)."""
    return zh.replace("论语", "《》")


def asks_about(zh: str, lower: str) -> bool:
    """True when the question asks for a view of what it names (怎么看, 论, "what did Confucius say about")."""
    return any(m in untitled(zh) for m in ABOUT_ZH) or bool(ABOUT_EN.search(lower))


def asks_what(zh: str, lower: str) -> bool:
    """True when the question asks what something is or how it is done (什么是, 怎样, "what is", "how",
    "according to"): a topic question when its subject is a theme, not a person (颜回怎么死的)."""
    return any(m in zh for m in ASKS_WHAT_ZH) or bool(ASKS_WHAT_EN.search(lower))


# A heading names its theme as the head of a noun phrase: 孔子的教育方法, 孟子的仁政, 孔子眼中的颜回,
# 诗经中的爱情诗 (a book or speaker before, the theme last, a general head noun after it); "Friendship in the
# Analects", "Mencius and human nature", "Hermits who mocked Confucius" (the theme first, a modifier after)
CANON = re.compile(r"四书|儒家|经典|\bconfucian\w*|\bfour books\b|\bclassics\b")
BOOKS_ZH = ("论语", "孔子", "夫子", "孟子", "孟轲", "诗经", "《》", "大学", "中庸", "儒家", "四书", "先秦")
HEADS_ZH = (
    "思想|方法|之道|观念|理念|学说|主张|观点|看法|理论|故事|事迹|言论|论述|段落|章节|篇章|名言|诗歌|诗篇|诗|观|论"
    "|体现|地位|含义|意义|内涵|作用|形象|标准|要求|原则|说"  # 孟子的性善说
    "|之情|之间"  # 诗经里的兄弟之情
)
HEAD_ZH = f"(?:的)?(?:{HEADS_ZH})?"
BARE_ZH = re.compile(
    f"^(?:{'|'.join(BOOKS_ZH)})(?:论|谈|讲|说|的|中的|里的|(?:所)?(?:讲|说|谈|论)的)(\\w)" + r"[\s？?。！!]*$"
)
KIN_ZH = ("父母", "朋友", "友人")  # kin and friends: 孔子的朋友 names people, not a theme
PREFIX_ZH = re.compile(r"(?:的|与|和|及|同|对|里|中)$")
ASKS_ZH = re.compile("什么|怎么|怎样|如何|为什么|谁|哪|吗|呢|几")
BOOKS_EN = (
    r"confucius|mencius|mengzi|kongzi|master|analects|book|songs|odes|poetry|shijing|classics?|confucian\w*|four|books"
)
HEADS_EN = (
    r"philosophy|thought|ideas?|views?|teachings?|doctrines?|theory|methods?|character|role|place|importance|meaning|concept"
    r"|arguments?|claims?|beliefs?"  # "Mencius's argument that human nature is good"
)
LEAD_EN = re.compile(  # "Confucius's favourite disciple Yan Hui": a book, a speaker or a kind of person before
    r"^\W*(?:(?:the|on|and|s|of|as|a|an|that|disciples?|students?|favou?rite|"
    + HEADS_EN
    + "|"
    + BOOKS_EN
    + r")\b\W*)*$"
)
VERB_EN = re.compile(r"\b(?:is|are|was|were|be|been|am|do|does|did|can|could|should|would|will|must|may|might)\b")
MODIFIER_EN = re.compile(
    r"^(?:'s|’s)?(?:\s+[a-z]+)?\s*(?:$|[,:;?.!]|(?:in|of|and|or|who|that|which|according|for|on|as|between|versus|vs|among|with"
    r"|without|toward|towards|by|from|during|" + HEADS_EN + r")\b)"
)


def heading(zh: str, lower: str, themes: Sequence[Theme]) -> bool:
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


def governs(zh: str, lower: str, themes: Sequence[Theme]) -> bool:
    """True when a modern or English question makes a theme its subject: a marker right before it
    ("on war and Yan", "about friends who lie", 孟子论性善, 关于井田制…的主张) or a
    view of it after it (对鬼神…的态度). A classical line never does."""
    zh = untitled(zh)
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


def qualified(zh: str, lower: str, themes: Sequence[Theme]) -> bool:
    """True when the question says more than its theme ("friends *who lie*", "the poem about *a
    peach tree*"): it asks about one passage, not the theme as a whole, so it is no topic question."""
    rest_en = lower
    for theme in themes:
        if theme.en is not None:
            rest_en = theme.en.sub(" ", rest_en)
    content = [w for w in re.findall(r"[a-z]+", rest_en) if w not in _EN_SCAFFOLD]
    rest_zh = _said(tuple(sorted({w for t in themes for w in t.zh}))).sub("", zh)
    return bool(content) or cjk_count(rest_zh) >= 2


def subject_runs(zh: str, lower: str) -> tuple[list[str], list[str]]:
    """The runs of a question that may name a subject: its Chinese and its English with the words that
    say nothing more (question words, books, speakers, the kinds of passage) cut out."""
    zh_runs = [run for run in re.split(r"[^\u4e00-\u9fff]+", _said(()).sub("|", zh)) if run]
    english = re.sub(r"[a-z]+(?:'[a-z]+)?", lambda m: "|" if m.group(0) in _EN_SCAFFOLD else m.group(0), lower)
    return zh_runs, [run for run in re.split(r"[|,.;:?!()\u3000-\u303f\uff00-\uffef]+", english) if run.strip()]


@functools.lru_cache(maxsize=256)
def _said(theme_words: tuple[str, ...]) -> re.Pattern:
    """The words that say no more than the themes: theirs and the scaffold, in one leftmost-longest
    pass (not word by word: 讽刺诗 must lose 讽刺, not 刺诗, whatever the order)."""
    words = set(theme_words) | set(SURVEY_ZH + ABOUT_ZH + ASKS_WHAT_ZH + SONGS_ZH + ANALECTS_ZH + _ZH_SCAFFOLD)
    words |= set(HEADS_ZH.split("|")) - {"方法"}  # 孔子的交友之道, 颜回的故事: the kind of statement, nothing more
    words |= {w.strip("《》") for ws, _ in MARKERS.values() for w in ws}  # the book it names says nothing more
    return re.compile("|".join(map(re.escape, sorted(words, key=lambda w: (-len(w), w)))))


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
    "notion character as disciple disciples student students favourite favorite should can could would might "
    "must one oneself we our i my you your people person become behave treat practise practice important mean "
    "means meant define defined explain explained according value values between compare compared differ "
    "differs argument arguments claim claims belief beliefs believe believed oppose opposed advice advise advises "
    "scene scenes image images imagery quote quotes quotation quotations find help essay class lesson".split()
)
# question words and particles; the kinds of passage (章节, 句子, 话); the canon as a whole, like a book's
# name (儒家经典, 四书); the kind of statement asked for, not a narrower subject (原则, 区别, 思想); each
# book's (论语和孟子分别怎么讲孝); how a speaker saw someone (孔子眼中的颜回); who should do it and how
# (孔子怎样教弟子, 我们应该怎样做到孝); what he meant by it (孔子所说的仁); spoken fillers (到底, 具体,
# 啊); the feeling or relation of a theme (兄弟之情, 兄弟之间); a request for passages and what they are for
# (帮我找找, 适合引用的名句, 作文); how it is done or where they differ (具体要怎么做, 差在哪)
_ZH_SCAFFOLD = tuple(
    "什么 怎么 怎样 如何 有 对 的 吗 呢 了 是 和 与 里 中 上 哪些 章节 篇章 诗篇 篇 章 句子 话 首 诗歌 地方 儒家经典 四书 儒家 "
    "经典 原则 区别 关系 思想 说法 言论 分别 各自 眼中 眼里 心目中 心中 怎么样 应该 应当 才能 做到 看待 定义 所说的 "
    "说的 讲的 所谓 弟子 学生 我们 一个人 涵义 本质 核心 重要性 价值 精神 观念 "
    "到底 究竟 具体 那么 这么 自己 啊 呀 吧 之情 之间 古书 古籍 内容 想不想 要不要 该不该 是不是 会不会 能不能 "
    "帮我 给我 找找 找 读读 可以 适合 合适 差在哪 在哪 哪里 差别 之分 之辨 之别 不同 认为 怎么做 要 才算 算 样子 场面 场景 名句 引用 作文 参考".split()
)
