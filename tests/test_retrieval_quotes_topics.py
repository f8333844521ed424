"""Quotes first (a message containing a verbatim line of a passage ranks it first) and topic
questions (the theme index), on the real corpus with the model-free hashing embedder."""

from __future__ import annotations

import asyncio
import random

import pytest

from core.engine.ladder import Answer, FallbackLadder, LadderRequest
from core.language.text import to_simplified
from core.retrieval.quotes import MIN_LINE_CHARS, LineIndex, quotes_first, squash_with_bounds
from core.retrieval.themes import Theme, ThemeIndex, TopicQuery
from core.retrieval.told import case
from core.skills import SkillRegistry
from core.tools import ToolContext
from tests.fakes.retrieval_fixtures import build_real_index, open_retriever, real_passages


@pytest.fixture(scope="module")
def real_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("lancedb")
    build_real_index(path)
    return path


def test_a_line_is_whole_clauses_of_six_characters_or_more():
    index = LineIndex(
        [
            ("a", "关关雎鸠，在河之洲。窈窕淑女，君子好逑。"),
            ("b", "掺执子之手兮，无我恶兮。"),
            ("c", "执子之手，与子偕老。"),
        ]
    )
    assert index.quoted("关关雎鸠") == {}  # one 4-character clause: not a line
    assert index.quoted("请问“关关雎鸠，在河之洲”是什么意思？") == {"a": 8}
    assert index.quoted("在河之洲窈窕淑女君子好逑") == {"a": 12}  # no punctuation, across sentences
    assert index.quoted("執子之手，與子偕老") == {"c": 8}  # traditional characters
    assert index.quoted("执子之手与子偕老") == {"c": 8}  # 遵大路's 掺执子之手兮 starts mid-clause: not its line
    assert index.quoted("关关雎鸠在河") == {}  # ends inside a clause


def test_quotes_first_moves_quoted_passages_to_the_front_longest_first():
    assert quotes_first(["x", "a", "b"], {"b": 8, "a": 12, "z": 8}) == ["a", "b", "z", "x"]
    assert quotes_first(["x", "y"], {}) == ["x", "y"]


async def test_every_quoted_line_ranks_its_passage_first(real_index):
    """The guarantee, over the corpus: for 150 random passages, a line of it (≥ 6 characters, whole
    clauses) wrapped in a question, in traditional characters or without punctuation, ranks first a
    passage with the longest line the message contains (its own passage when that line is unique)."""
    retriever = await open_retriever(real_index)
    passages = real_passages()
    index = LineIndex((p.id, p.text) for p in passages)
    rng = random.Random(24)
    checked = 0
    for p in rng.sample(passages, 150):
        squashed, starts, ends = squash_with_bounds(p.text)
        spans = [(s, e) for s in sorted(starts) for e in sorted(ends) if MIN_LINE_CHARS <= e - s <= 16]
        if not spans:
            continue
        s, e = rng.choice(spans)
        line = squashed[s:e]
        for query in (f"“{line}”这句话是什么意思？", f"请解释{to_traditional(line)}", f"What does {line} mean?"):
            quoted = index.quoted(query)
            assert quoted.get(p.id, 0) >= len(line), query
            best = {pid for pid, n in quoted.items() if n == max(quoted.values())}
            top = (await retriever.search(query, k=3)).results[0]
            assert top.id in best and top.verbatim, (query, top.id, p.id)
        checked += 1
    assert checked > 120


def to_traditional(text: str) -> str:
    """A few characters written the traditional way (the index maps them back)."""
    return text.translate(str.maketrans("学说时为见与乐远来问习", "學說時為見與樂遠來問習"))


async def test_a_quote_inside_a_long_message_beats_every_route(real_index):
    retriever = await open_retriever(real_index)
    message = "我今天在地铁上看到一句话，说“己所不欲，勿施于人”，想问问夫子这句话在今天怎么用？"
    ids = [r.id for r in (await retriever.search(message, k=5)).results]
    assert set(ids[:2]) == {"lunyu:12.2", "lunyu:15.24"}


def test_the_theme_files_resolve_to_passages():
    themes = ThemeIndex.of(real_passages())
    names = {t.name: t for t in themes.themes}
    assert {
        "爱情",
        "婚嫁",
        "弃妇",
        "战争",
        "思乡",
        "农事",
        "讽刺",
        "祭祀",
        "宴飨",
        "孝",
        "学",
        "友",
        "政",
        "君子",
        "仁",
        "礼",
    } <= set(names)
    assert names["爱情"].ids[0] == "shijing:1" and "shijing:145" in names["爱情"].ids  # 关雎 first, 泽陂 listed
    assert names["爱情"].ids.index("shijing:1") < names["爱情"].ids.index("shijing:145")
    assert names["乐"].ids[0] == "lunyu:7.14" and names["颜回"].ids[0] == "lunyu:6.11"  # 闻韶, 贤哉回也
    assert {"隐者", "鬼神", "丧", "田制", "君臣", "与民同乐", "史诗", "美貌", "教", "耻", "自省", "慎独"} <= set(names)
    assert all(len(t.ids) >= 4 for t in themes.themes)
    assert any(pid.startswith("lunyu:") for pid in names["孝"].ids)


@pytest.mark.parametrize(
    ("query", "survey", "corpus", "theme"),
    [
        ("诗经里有哪些写爱情的诗？", True, "shijing", "爱情"),
        ("Which poems in the Book of Songs are love songs?", True, "shijing", "爱情"),
        ("孔子怎么论孝？", True, "lunyu", "孝"),  # says no more than its theme: the theme's order
        ("What did Confucius say about friendship?", True, "lunyu", "友"),
        ("What did Confucius say about music?", True, "lunyu", "乐"),
        ("论语里孔子怎样称赞颜回？", True, "lunyu", "颜回"),
        ("论语里子路是个什么样的人？", True, "lunyu", "子路"),
        ("孔子对鬼神的态度", True, "lunyu", "鬼神"),
        ("孟子怎么论性善？", True, "mengzi", "人性"),
        ("What does Mencius say about human nature being good?", True, "mengzi", "人性"),
        ("Mencius on war and military conquest", True, "mengzi", "战争"),
        ("Mencius on war and the conquest of Yan", False, "mengzi", "战争"),  # says more: fused
        ("Confucius on poverty and wealth", True, "lunyu", "富贵"),
        ("中庸里怎样论“诚”？", True, "zhongyong", "诚"),  # 中庸里 names the book, not the theme 中庸
        ("大学里讲修身的段落", True, "daxue", "修身"),  # 段落 names the kind of statement, nothing narrower
        ("What did Confucius say about friends who lie?", False, "lunyu", "友"),  # fused, gloss route kept
        ("诗经中揭露统治者的讽刺诗有哪些？", True, "shijing", "讽刺"),  # 讽刺诗 loses 讽刺, never 刺诗
        ("Love poems in the Book of Songs", True, "shijing", "爱情"),  # a plural names a list
        ("Banquet and feasting poems in the Book of Odes", True, "shijing", "宴飨"),
        ("诗经里写农民受剥削的诗", False, "shijing", "农事"),  # a list narrowed by 受剥削: the theme is a route
        ("《中庸》里怎样论“诚”？", True, "zhongyong", "诚"),  # the book it names and 怎样 say nothing more
        ("中庸讲的诚", True, "zhongyong", "诚"),  # the book speaks (讲的), then the theme's one-character name
        ("Loyalty and reciprocity (zhong and shu) in the Analects", True, "lunyu", "忠恕"),  # an aside restates
        ("Mencius's argument that human nature is good", True, "mengzi", "人性"),  # the argument is the heading
    ],
)
def test_topic_questions_are_recognised(query, survey, corpus, theme):
    topic = ThemeIndex.of(real_passages()).recognise(query)
    assert topic is not None and topic.survey is survey and topic.corpus == corpus
    assert theme in {t.name for t in topic.themes}


@pytest.mark.parametrize(
    "query",
    [
        "学而时习之",
        "孟懿子问孝",
        "管仲之器小哉是什么意思",
        "Who was Yan Hui?",
        "论笃是与，君子者乎，色庄者乎",  # a classical line: 论 and 君子 in passing
        "孔子说：品德不去修养，学问不去讲习，听到正义的事不能去追随，有缺点不能改正，这些都是我所忧虑的。",
        "In teaching there should be no distinction of classes",  # teaching named, not its subject
        "What does the Doctrine of the Mean say in its first lines about what heaven confers?",  # a title
        "Mencius's argument with Gaozi about willows",  # one debate, no theme named
    ],
)
def test_other_questions_are_not_topic_questions(query):
    assert ThemeIndex.of(real_passages()).recognise(query) is None


@pytest.mark.parametrize(
    ("query", "survey", "corpus", "theme"),
    [
        # a noun phrase headed by its theme, no question word: a book or speaker before, the theme last
        ("孔子的教育思想", True, "lunyu", "教"),
        ("孟子的仁政", True, "mengzi", "仁政"),
        ("孔子的交友之道", True, "lunyu", "友"),
        ("诗经中的爱情诗", True, "shijing", "爱情"),
        ("孔子眼中的颜回", True, "lunyu", "颜回"),
        ("论语里颜回的故事", True, "lunyu", "颜回"),
        ("孔子的教育方法", False, "lunyu", "教"),  # the method narrows the theme: a fused route
        ("礼在论语中的地位", True, "lunyu", "礼"),  # the theme first, then where and what of it
        ("孝道在论语中的体现", True, "lunyu", "孝"),
        ("孟子论义", True, "mengzi", "义"),  # a theme's one-character name after a book and a marker
        ("论语中的朋友", True, "lunyu", "友"),  # friends in a book: the theme; 孔子的朋友 (his friends) is not
        ("孔子的朋友观", True, "lunyu", "友"),
        # the theme first, a modifier after; or a book and the theme
        ("Friendship in the Analects", True, "lunyu", "友"),
        ("Filial piety according to Mencius", True, "mengzi", "孝"),
        ("Mencius and human nature", True, "mengzi", "人性"),
        ("Recluses who laughed at Confucius", False, "lunyu", "隐者"),
        ("The importance of ritual in the Analects", True, "lunyu", "礼"),
        ("Confucius's political philosophy", True, "lunyu", "政"),
        ("Zilu's character", True, "all", "子路"),
        ("Confucius as a teacher", True, "lunyu", "教"),
        ("Confucius's favourite disciple Yan Hui", True, "lunyu", "颜回"),  # the kind of person before the name
        ("Filial duty in Mencius", False, "mengzi", "孝"),  # one more word after the theme, then a modifier
        # a person as the topic, and how a speaker saw him
        ("孔子评价子贡", True, "lunyu", "子贡"),
        ("what Confucius thought of Guan Zhong", True, "lunyu", "管仲"),
        ("Confucius's opinion of Yan Hui", True, "lunyu", "颜回"),
        # names of a theme that are not its title
        ("What did Confucius say about being a good son?", True, "lunyu", "孝"),
        ("What did Confucius say about governance?", True, "lunyu", "政"),
        ("What did Confucius say about the noble person?", True, "lunyu", "君子"),
        ("孔子怎么看孝敬父母", True, "lunyu", "孝"),
        # a theme asked of another book, or of several
        ("孟子论学习", True, "mengzi", "学"),
        ("孟子里讲交友的段落", True, "mengzi", "友"),
        ("论语和孟子分别怎么讲孝", True, "lunyu,mengzi", "孝"),
        # spoken: a stance asked yes or no, fillers, 有什么, how it is described
        ("孔子相信鬼神吗？", True, "lunyu", "鬼神"),
        ("孔子信鬼神吗？", True, "lunyu", "鬼神"),
        ("孟子反对战争吗？", True, "mengzi", "战争"),
        ("孔子自己想不想做官？", True, "lunyu", "出仕"),
        ("孔子为什么那么看重诚信？", True, "lunyu", "信"),
        ("孟子说的仁政具体指什么？", True, "mengzi", "仁政"),
        ("孔子对说话有什么要求", True, "lunyu", "言行"),
        ("诗经里是怎么形容美女的？", True, "shijing", "美貌"),
        ("君子和小人到底差在哪", True, "all", "君子"),
        ("孔子喜欢音乐吗", True, "lunyu", "乐"),  # a liking, like a belief, is a stance
        ("孟子对读书学习有什么建议", True, "mengzi", "学"),
        ("Did Confucius believe in ghosts and gods?", True, "lunyu", "鬼神"),
        ("孟子的仁政具体要怎么做", True, "mengzi", "仁政"),
        ("帮我找找论语里讲交友的话", True, "lunyu", "友"),
        # in clauses: the clause that asks, the others setting the scene
        ("礼到底是什么？不就是一堆繁文缛节吗", True, "all", "礼"),
        ("孔子信命吗？他说的天命到底指什么", True, "lunyu", "天命"),  # the books the whole names
    ],
)
def test_topic_questions_in_other_words_are_recognised(query, survey, corpus, theme):
    test_topic_questions_are_recognised(query, survey, corpus, theme)


@pytest.mark.parametrize(
    "query",
    [
        "孔子说的三人行是什么意思",  # one saying, asked about
        "孔子说‘父母在，不远游’是什么意思",
        "孔子的父母",  # his parents, not filial piety
        "孔子的朋友",
        "孔子的父母。",
        "颜回",  # a name alone: a name query
        "Yan Hui",
        "子贡是谁",
        "孔子从来不谈怪异和鬼神",  # a sentence ending in the theme, not a heading
        "孟子批评他不懂得为政之道",
        "Learning is a lifelong journey",  # a sentence opening with the theme
        "Governing by virtue is like the pole star",
        "Music makes people happy",
    ],
)
def test_sayings_names_and_sentences_are_not_topic_questions(query):
    assert ThemeIndex.of(real_passages()).recognise(query) is None


@pytest.mark.parametrize(
    ("query", "corpus", "theme", "survey"),
    [
        ("最近一心想赚钱发财，孔子会怎么看我这种人", "lunyu", "富贵", True),
        ("最近和父母吵架了，论语里有什么说法吗？", "lunyu", "孝", True),
        ("最近和朋友闹翻了，孔子会怎么说", "lunyu", "友", True),
        ("I keep arguing with my parents. What would Confucius say?", "lunyu", "孝", True),
        ("觉得自己怀才不遇，没人赏识，孔子会怎么劝我", "lunyu", "怀才不遇", False),  # the subject index's, listed
    ],
)
def test_a_told_case_asks_what_the_books_say_of_its_subject(query, corpus, theme, survey):
    topic = ThemeIndex.of(real_passages()).recognise(query)
    assert topic is not None and topic.corpus == corpus and topic.survey is survey
    assert theme in {t.name for t in topic.themes}


@pytest.mark.parametrize(
    "query",
    [
        "用恩德回报怨恨行吗？孔子怎么说",  # the case is a question of its own: one saying asked about
        "有人说以德报怨，孔子怎么看",  # a reported saying
        "孔子怎么看孝",  # no case told: an ordinary topic question
        "What would Confucius say?",
        "Filial piety matters. What would Confucius say?",  # not the asker's own case
    ],
)
def test_only_the_askers_own_case_is_a_told_case(query):
    zh = to_simplified(query)
    assert case(zh, query.lower()) is None


@pytest.mark.parametrize(
    "query",
    [
        "国家有道和无道的时候，论语说君子该怎么做？",  # a condition narrows the question: no scene
        "子路问怎么治理政事。孔子说：自己先带头干，然后再让百姓勤劳。",  # a translation: a reported line
        "怎样砍斧头的柄？没有斧头就砍不成。怎样娶妻子？没有媒人就娶不到。",  # a stanza rendered
        "一个人没有仁德，怎么对待礼呢？一个人没有仁德，怎么对待音乐呢？",  # the other clauses name other themes
    ],
)
def test_a_clause_asks_for_a_survey_only_when_the_others_set_its_scene(query):
    topic = ThemeIndex.of(real_passages()).recognise(query)
    assert topic is None or not topic.survey


def test_a_question_across_books_takes_the_books_in_turn():
    theme = Theme("孝", ("孝",), None, ("lunyu:2.5", "lunyu:2.6", "lunyu:2.7", "mengzi:7.26", "mengzi:9.1"))
    both = [pid for pid, _ in ThemeIndex.ranking(TopicQuery((theme,), True, "lunyu,mengzi", across=True))]
    assert both == ["lunyu:2.5", "mengzi:7.26", "lunyu:2.6", "mengzi:9.1", "lunyu:2.7"]
    one = [pid for pid, _ in ThemeIndex.ranking(TopicQuery((theme,), True, "all"))]
    assert one == list(theme.ids)  # no book named: the theme's order
    themes = ThemeIndex.of(real_passages())
    assert themes.recognise("四书里关于“诚”的论述").across and themes.recognise("孟子和孔子怎么看仁").across
    assert not themes.recognise("Confucius on the Book of Songs and why to study poetry").across  # no canon named


def test_a_word_inside_another_themes_longer_word_names_no_theme():
    themes = ThemeIndex.of(real_passages())
    poetry = themes.recognise("Confucius on the Book of Songs and why to study poetry")
    assert poetry is not None and [t.name for t in poetry.themes] == ["诗"]  # not 学 for "study"
    mourning = themes.recognise("Confucius on mourning and funeral rites")
    assert mourning is not None and "礼" not in {t.name for t in mourning.themes}
    assert "学" in {t.name for t in themes.recognise("What does the Analects teach about study?").themes}
    fault = themes.recognise("Passages on seeking the fault in oneself")  # a * inside a phrase
    assert fault is not None and [t.name for t in fault.themes] == ["自省"]


async def test_a_survey_lists_the_themes_best_known_passages_first(real_index):
    retriever = await open_retriever(real_index)
    ids = [r.id for r in (await retriever.search("诗经里有哪些写爱情的诗？", k=5)).results]
    assert ids[0] == "shijing:1"  # 关雎
    love = set(next(t for t in retriever._themes.themes if t.name == "爱情").ids)
    assert set(ids) <= love
    english = [r.id for r in (await retriever.search("Which poems in the Book of Songs are love songs?", k=5)).results]
    assert english == ids


async def test_a_narrowed_list_keeps_to_the_theme(real_index):
    retriever = await open_retriever(real_index)
    topic = retriever._themes.recognise("诗经里写女子出嫁的诗")  # 女子 narrows 出嫁: no survey, still a list
    assert topic is not None and topic.listing and not topic.survey
    ids = [r.id for r in (await retriever.search("诗经里写女子出嫁的诗", k=5)).results]
    assert set(ids) <= set(next(t for t in retriever._themes.themes if t.name == "婚嫁").ids)


async def test_concurrent_searches_do_not_share_query_vectors(real_index):
    retriever = await open_retriever(real_index)
    queries = ["管仲之器小哉", "关关雎鸠", "执子之手", "巧言令色", "父母在不远游"]
    alone = [[r.id for r in (await retriever.search(q, k=3, mode="vector")).results] for q in queries]
    together = await asyncio.gather(*(retriever.search(q, k=3, mode="vector") for q in queries))
    assert [[r.id for r in resp.results] for resp in together] == alone


async def test_a_retrieval_only_answer_to_a_topic_survey_names_several_fitting_passages(real_index):
    retriever = await open_retriever(real_index)
    ladder = FallbackLadder(agent=None, llm=None, retriever=retriever)
    ctx = ToolContext(person_id=1, platform="console", chat_id="c1", is_group=False, trace_id="t1")
    question = "诗经里有哪些写爱情的诗？"
    request = LadderRequest([{"role": "user", "content": question}], SkillRegistry().get(None), question, ctx)
    answers = [e async for e in ladder.run(request) if isinstance(e, Answer)]
    (answer,) = answers
    assert answer.level == 2 and len(answer.citations) == 6
    assert answer.text.splitlines()[0].startswith("今日夫子不能细细论说，只举典籍中合于此题的篇章")
    assert "《诗经·国风·周南·关雎》「关关雎鸠，在河之洲。」[1]" in answer.text
    assert "窈窕淑女，寤寐求之" not in answer.text  # named by its opening line, not quoted in full
