"""The general forms of a topic question (core/retrieval/topic_forms.py): a theme named alone, what a
theme is, how it is done, "according to Confucius", a book then search terms; and what stays a quote,
a title or a name query (学而, 三人行, 巧言令色, 颜回, 接舆)."""

from __future__ import annotations

import pytest

from core.retrieval.named_books import book_hint
from core.retrieval.themes import Theme, ThemeIndex, TopicQuery
from tests.fakes.retrieval_fixtures import build_real_index, open_retriever, real_passages


@pytest.fixture(scope="module")
def themes() -> ThemeIndex:
    return ThemeIndex.of(real_passages())


@pytest.fixture(scope="module")
def real_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("lancedb")
    build_real_index(path)
    return path


@pytest.mark.parametrize(
    ("query", "corpus", "theme"),
    [
        # a theme alone, one character or more, with 道/之道, an aspect or a question mark
        ("孝", "all", "孝"),
        ("孝道", "all", "孝"),
        ("孝道？", "all", "孝"),
        ("仁", "all", "仁"),
        ("“礼”", "all", "礼"),
        ("交友之道", "all", "友"),
        ("中庸之道", "all", "中庸"),
        ("勇敢", "all", "勇"),
        ("孝的重要性", "all", "孝"),
        ("Filial piety", "all", "孝"),
        ("Friendship?", "all", "友"),
        ("Benevolence", "all", "仁"),
        ("The concept of ren", "all", "仁"),
        ("The importance of filial piety", "all", "孝"),
        ("Benevolence (ren)", "all", "仁"),
        ("Friendship and music", "all", "乐"),
        ("孝的名言", "all", "孝"),
        # a book, then the theme (a search box's terms)
        ("论语 仁", "lunyu", "仁"),
        ("孟子 孝", "mengzi", "孝"),
        ("Confucius filial piety", "lunyu", "孝"),
        # what it is, what it means
        ("什么是仁？", "all", "仁"),
        ("何谓君子", "all", "君子"),
        ("孝是什么意思", "all", "孝"),
        ("如何理解孔子说的礼", "lunyu", "礼"),
        ("孔子对仁的理解", "lunyu", "仁"),
        ("What is filial piety?", "all", "孝"),
        ("What does ren mean?", "all", "仁"),
        ("In the Analects, what is benevolence?", "lunyu", "仁"),
        # how it is done, why it matters, how two of it differ, no view word
        ("孔子怎样教学生", "lunyu", "教"),
        ("孔子是怎样学习的", "lunyu", "学"),
        ("孔子如何对待父母", "lunyu", "孝"),
        ("孔子为什么重视礼", "lunyu", "礼"),
        ("君子和小人的区别", "all", "君子"),
        ("How did Confucius teach?", "lunyu", "教"),
        ("How should one treat one's parents according to Confucius?", "lunyu", "孝"),
        ("How to be a gentleman", "all", "君子"),
        # according to a speaker; what he said, in other words
        ("According to Confucius, what is filial piety?", "lunyu", "孝"),
        ("What is courage according to the Analects?", "lunyu", "勇"),
        ("孔子对礼乐说过些什么", "lunyu", "礼"),
        # a heading whose head is the kind of statement or an aspect, nothing narrower
        ("孔子的君子形象", "lunyu", "君子"),
        ("孟子的性善说", "mengzi", "人性"),
        ("君子的标准", "all", "君子"),
        ("论语里的交友原则", "lunyu", "友"),
        ("论语里讲“恕”的地方", "lunyu", "忠恕"),
        # the two of the five constants with lists of their own since
        ("孔子论信", "lunyu", "信"),
        ("诚信", "all", "信"),
        ("孟子论智", "mengzi", "智"),
        ("What does Confucius say about wisdom?", "lunyu", "智"),
        ("What did Confucius teach about trustworthiness?", "lunyu", "信"),
    ],
)
def test_general_forms_of_a_topic_question_are_surveys(themes, query, corpus, theme):
    topic = themes.recognise(query)
    assert topic is not None and topic.survey and topic.corpus == corpus
    assert theme in {t.name for t in topic.themes}


@pytest.mark.parametrize(
    "query",
    [
        # short quotes and titles: one character more than a theme is a saying, a title or a name
        "学而",
        "里仁",
        "三人行",
        "巧言令色",
        "巧言令色，鲜矣仁",
        "关关雎鸠",
        "父母在，不远游",
        "仁者乐山",
        "里仁为美",
        "君子不器",
        "知者乐水",
        "人而无信，不知其可也",
        "孟子 曰",
        # a theme's word that is a line's words is a quote, alone or asked about
        "过犹不及",
        "民为贵",
        "有教无类",
        "孟子说民为贵是什么意思？",
        "什么是浩然之气",
        # a saying asked about says more than its theme
        "克己复礼是什么意思",
        "怎样理解学而时习之",
        'What does "ren" mean in "ren zhe ai ren"?',
        # a person's name alone, or one story of him, is a name query
        "颜回",
        "子路",
        "尧",
        "接舆",
        "Yan Hui",
        "Zilu",
        "颜回怎么死的",
        "孔子的父母",
        "What did Confucius teach his son?",
    ],
)
def test_quotes_titles_and_names_are_not_topic_questions(themes, query):
    assert themes.recognise(query) is None


def test_a_persons_name_is_marked_in_the_words_file(themes):
    by_name = {t.name: t for t in themes.themes}
    assert by_name["颜回"].person and by_name["尧舜"].person
    hermits = by_name["隐者"]  # hermits by kind are the theme; 接舆 by name is a person
    assert not hermits.person and "接舆" in hermits.names and "接舆" in hermits.zh and "隐士" not in hermits.names
    assert "@" not in "".join(w for t in themes.themes for w in t.zh)
    assert by_name["颜回"].en is not None and by_name["颜回"].en.fullmatch("yan hui")


def test_a_verb_of_saying_names_its_theme_only_when_alone(themes):
    learning = themes.recognise("What does the Analects teach about learning?")
    assert learning is not None and [t.name for t in learning.themes] == ["学"]  # "teach" is the view, not 教
    teaching = themes.recognise("How did Confucius teach his students?")
    assert teaching is not None and [t.name for t in teaching.themes] == ["教"]


def test_a_book_then_search_terms_names_the_book():
    assert book_hint("孟子 性善论") == "mengzi" and book_hint("论语 君子") == "lunyu"
    assert book_hint("孟子曰：人之所以异于禽兽者几希") == "all"  # a classical line names no book


@pytest.mark.parametrize("query", ["孝道", "Filial piety", "什么是孝？", "孔子如何对待父母"])
async def test_a_theme_alone_lists_its_best_known_passages_first(themes, real_index, query):
    retriever = await open_retriever(real_index)
    response = await retriever.search(query, k=5)
    filial = next(t for t in themes.themes if t.name == "孝")
    assert response.topic == "孝"
    assert [r.id for r in response.results][:3] == [
        pid for pid in filial.ids if query != "孔子如何对待父母" or pid.startswith("lunyu:")
    ][:3]


def test_a_pair_of_a_themes_words_ranks_the_passages_naming_both_first():
    theme = Theme(
        "君子",
        ("君子", "小人"),
        None,
        ("lunyu:2.12", "lunyu:2.14", "lunyu:4.10", "lunyu:4.16"),
        holds=(
            ("君子", frozenset({"lunyu:2.12", "lunyu:2.14", "lunyu:4.10", "lunyu:4.16"})),
            ("小人", frozenset({"lunyu:2.14", "lunyu:4.16"})),
        ),
    )
    pair = [pid for pid, _ in ThemeIndex.ranking(TopicQuery((theme,), True, "all", words=("君子", "小人")))]
    assert pair == ["lunyu:2.14", "lunyu:4.16", "lunyu:2.12", "lunyu:4.10"]  # both words first, each in list order
    one = [pid for pid, _ in ThemeIndex.ranking(TopicQuery((theme,), True, "all", words=("君子",)))]
    assert one == list(theme.ids)  # one word: the list's order
    modern = [pid for pid, _ in ThemeIndex.ranking(TopicQuery((theme,), True, "all", words=("君子", "小人们")))]
    assert modern == list(theme.ids)  # a word no passage has pairs nothing


def test_the_difference_of_a_pair_lists_passages_naming_both(themes):
    topic = themes.recognise("君子和小人的区别")
    assert topic is not None and topic.survey and set(topic.words) == {"君子", "小人"}
    held = dict(next(t for t in themes.themes if t.name == "君子").holds)
    first = [pid for pid, _ in ThemeIndex.ranking(topic)][:3]
    assert all(pid in held["君子"] and pid in held["小人"] for pid in first)


def test_a_pair_named_as_one_word_lists_passages_naming_both_halves(themes):
    topic = themes.recognise("孟子论义和利的区别")
    assert topic is not None and topic.survey and topic.words == ("义和利",)
    texts = {p.id: p.text for p in real_passages()}
    first = [pid for pid, _ in ThemeIndex.ranking(topic, "mengzi")][:2]
    assert len(first) == 2 and all("义" in texts[pid] and "利" in texts[pid] for pid in first)
    assert "mengzi:1.1" in first  # 王何必曰利？亦有仁义而已矣
    terse = themes.recognise("孟子 义利之分")  # the pair as two characters, "the distinction of" after it
    assert terse is not None and terse.survey and terse.corpus == "mengzi" and terse.words == ("义利",)
    head = [pid for pid, _ in ThemeIndex.ranking(terse, "mengzi")][:2]
    assert all("义" in texts[pid] and "利" in texts[pid] for pid in head)


def test_one_of_a_pair_of_persons_lists_the_passages_about_him_alone_first(themes):
    texts = {p.id: p.text for p in real_passages()}
    shun = themes.recognise("孟子怎么讲舜")
    assert shun is not None and [t.name for t in shun.themes] == ["尧舜"]
    head = [pid for pid, _ in ThemeIndex.ranking(shun, "mengzi")][:5]
    assert all("舜" in texts[pid] and "尧" not in texts[pid] for pid in head), head
    both = themes.recognise("孟子怎么看尧舜")
    assert both is not None
    theme = next(t for t in themes.themes if t.name == "尧舜")
    in_order = [pid for pid in theme.ids if pid.startswith("mengzi:")]
    assert [pid for pid, _ in ThemeIndex.ranking(both, "mengzi")] == in_order  # the pair: the list's order


def test_confucius_spoken_of_by_mencius_is_the_subject_asked(themes):
    for query in ("孟子怎么评价孔子", "What does Mencius say about Confucius?"):
        topic = themes.recognise(query)
        assert topic is not None and topic.indexed and topic.corpus == "mengzi", query
        ranked = [pid for pid, _ in ThemeIndex.ranking(topic)]
        assert ranked and all(pid.startswith("mengzi:") for pid in ranked) and "mengzi:13.24" in ranked
    assert themes.recognise("孔子怎么评价管仲").themes[0].name == "管仲"  # the speaker: cut out as before


def test_a_theme_named_like_a_book_lists_that_books_passages_first(themes):
    mean = themes.recognise("中庸之道到底是什么意思？")
    assert mean is not None and mean.survey and mean.corpus == "all"
    assert [pid for pid, _ in ThemeIndex.ranking(mean)][:3] == ["zhongyong:2", "zhongyong:3", "zhongyong:1"]
    analects = themes.recognise("论语里的中庸")
    assert analects is not None and [pid for pid, _ in ThemeIndex.ranking(analects)][0] == "lunyu:6.29"


def test_a_themes_rank_counts_among_its_passages_in_the_books_asked():
    hymns_first = Theme("祭祀", ("祭祀",), None, ("shijing:266", "shijing:267", "shijing:209", "lunyu:3.10"))
    spirits = Theme("鬼神", ("鬼神",), None, ("lunyu:6.22", "lunyu:11.12"))
    ranked = [pid for pid, _ in ThemeIndex.ranking(TopicQuery((hymns_first, spirits), True, "lunyu"))]
    assert ranked == ["lunyu:3.10", "lunyu:6.22", "lunyu:11.12"]  # first of the Analects' 祭祀, not fourth of all


def test_a_theme_lists_what_the_books_teach_before_the_songs(themes):
    by_name = {t.name: t for t in themes.themes}
    filial = by_name["孝"].ids
    assert filial[0].startswith("lunyu:") and by_name["友"].ids[0].startswith("lunyu:")
    songs = [i for i, pid in enumerate(filial) if pid.startswith("shijing:")]
    assert songs and min(songs) > max(i for i, pid in enumerate(filial) if not pid.startswith("shijing:"))
    assert by_name["中庸"].ids[:3] == ("lunyu:6.29", "lunyu:11.16", "lunyu:13.21")  # 中庸之为德也, 过犹不及
    assert by_name["中庸"].ids.index("zhongyong:2") < by_name["中庸"].ids.index("mengzi:13.26")
    assert by_name["诚"].ids[:2] == ("zhongyong:22", "mengzi:7.12")  # 诚者，天之道也 in both books
    fate = by_name["天命"].ids  # 五十而知天命 … then 天命之谓性
    assert fate[0] == "lunyu:2.4" and next(pid for pid in fate if not pid.startswith("lunyu:")) == "zhongyong:1"
    assert by_name["心"].ids[:3] == ("mengzi:3.6", "mengzi:11.11", "mengzi:13.1")  # the sprouts, 求放心, 尽心
