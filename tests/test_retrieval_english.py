"""English and question routing (issue 24, items 1-2): the glossary's terms reach the vector route,
and a question that names a book ranks that book's passages first."""

from __future__ import annotations

from core.retrieval.fusion import Fused
from core.retrieval.glossary import GLOSSARY, expand_english, with_english_terms
from core.retrieval.modern import expand_modern
from core.retrieval.ordering import book_first
from core.retrieval.snapshot import PassageTable
from core.retrieval.themes import book_hint
from tests.fakes.retrieval_fixtures import passage


def test_the_vector_route_sees_an_english_query_with_its_chinese_terms():
    assert with_english_terms("Should we repay injury with kindness?") == (
        "Should we repay injury with kindness? " + expand_english("Should we repay injury with kindness?")
    )
    assert "报" in with_english_terms("Should we repay injury with kindness?")
    assert with_english_terms("quantum computing") == "quantum computing"  # no term: unchanged
    assert with_english_terms("孔子怎么看管仲") == "孔子怎么看管仲"  # Chinese: unchanged


def test_a_word_listed_twice_searches_both_terms_and_auxiliaries_are_not_terms():
    assert GLOSSARY["charming"].split() == ["令色", "倩"]
    assert "will" not in GLOSSARY and "say" not in GLOSSARY and "confucius" not in GLOSSARY
    assert expand_english("Is going too far as bad as not going far enough?")  # vocabulary, not a list of questions


def test_a_question_names_its_book_and_a_classical_line_does_not():
    assert book_hint("Which poem says my heart is not a stone?") == "shijing"
    assert book_hint("What did Confucius say about friends who lie?") == "lunyu"
    assert book_hint("Which poem did Confucius like?") == "all"  # both named
    assert book_hint("Why use an ox knife to kill a chicken?") == "all"
    assert book_hint("哪首诗写了等待爱人的女子？") == "shijing"
    assert book_hint("孔子怎么看管仲？") == "lunyu"
    assert book_hint("不学诗，无以言") == "all"  # a quote with 诗 in it is not a question about poems
    retold = "商汤的铭文说：一天新，就天天新。《诗经》说：周虽然是古老的国家，却禀受了新的天命。"
    assert book_hint(retold) == "all"  # the passage's own source, cited: no book asked for
    assert book_hint("《诗经》说什么是思无邪？") == "shijing"
    assert book_hint("How can the three hundred Odes be summed up in a single phrase?") == "all"  # the whole
    assert book_hint("孔子怎么评价诗三百？") == "lunyu"
    assert book_hint("Which of the three hundred odes is about love?") == "shijing"  # still asks for a poem


def test_a_songs_marker_is_a_word_not_a_character():
    assert book_hint("我讨厌郑国的靡靡之音扰乱了典雅的正乐，这是什么意思？") == "all"  # 典雅 is no 大雅
    assert book_hint("大雅里有哪些写周人祖先的诗？") == "shijing"


def test_the_mean_and_the_great_learning_name_their_books_as_titles_or_places():
    assert book_hint("中庸里怎样论“诚”？") == "zhongyong"
    assert book_hint("中庸一书讲了什么？") == "zhongyong"
    assert book_hint("孔子怎样看待中庸？") == "lunyu"  # the virtue, not the book
    assert book_hint("中庸中的“中”是什么意思？") == "all"
    assert book_hint("大学里讲修身的段落") == "daxue"
    assert book_hint("大学第一章讲什么？") == "daxue"
    assert book_hint("我在大学里应该学什么？") == "all"  # a university
    assert book_hint("上大学里有什么用？") == "all"
    assert book_hint("The Great Learning on cultivating oneself") == "daxue"
    assert book_hint("论语、中庸、大学和孟子分别怎么讲孝") == "lunyu,mengzi,daxue,zhongyong"  # a list of titles
    assert book_hint("中和与中庸的区别") == "all"  # the virtue beside another virtue
    assert book_hint("中庸讲的诚") == "zhongyong"  # opening the question, then a verb of saying: the book speaks
    assert book_hint("大学讲修身") == "daxue"
    assert book_hint("孔子讲中庸") == "lunyu"  # spoken of: the virtue
    assert book_hint("中庸是什么意思") == "all"
    assert book_hint("大学 三纲领") == "daxue"  # a title, then search terms, as 论语 仁
    assert book_hint("中庸 君子怎样对待富贵贫贱") == "zhongyong"
    assert book_hint("大学之道") == "all"  # a quote
    assert book_hint("孟子怎么评价孔子") == "mengzi"  # Confucius spoken of: the Mencius is the book
    assert book_hint("What does Mencius say about Confucius?") == "mengzi"
    assert book_hint("孟子和孔子怎么看仁") == "lunyu,mengzi"  # each speaks


def test_a_question_searches_its_words_not_the_titles_of_its_books():
    from core.retrieval.named_books import searched

    assert searched("《中庸》为什么把“诚”看得那么重？") == "为什么把“诚”看得那么重？"
    assert searched("大学里怎么讲修身") == "怎么讲修身"
    assert searched("孔子怎么看中庸") == "孔子怎么看中庸"  # the virtue is what it asks
    assert searched("我在大学里学什么好") == "我在大学里学什么好"  # a university
    assert searched("大学之道，在明明德") == "大学之道，在明明德"  # a quote is searched whole
    assert searched("中庸 是什么") == "中庸 是什么"  # nothing but question words left: searched whole
    assert searched("中庸 君子怎样对待富贵贫贱") == "君子怎样对待富贵贫贱"


def test_a_question_opening_with_its_speaker_and_on_names_his_book():
    assert book_hint("孟子论君臣关系") == "mengzi"  # no 的 or 吗, still a question, not a classical line
    assert book_hint("孔子谈学习") == "lunyu"
    assert book_hint("孟子见梁惠王") == "all"  # a line of the text


def test_book_first_keeps_fused_order_within_each_book():
    table = PassageTable.from_passages(
        [
            passage("lunyu:1.1", "学而"),
            passage("shijing:1", "关雎"),
            passage("lunyu:1.2", "有子"),
            passage("shijing:2", "葛覃"),
        ]
    )
    fused = [Fused(i, 1.0 - n / 10) for n, i in enumerate(["lunyu:1.1", "shijing:1", "lunyu:1.2", "shijing:2"])]
    assert [f.id for f in book_first(fused, "shijing", table)] == ["shijing:1", "shijing:2", "lunyu:1.1", "lunyu:1.2"]
    assert book_first(fused, "all", table) == fused


def test_a_question_after_a_saying_of_confucius_finds_it_in_the_mean_too():
    table = PassageTable.from_passages(
        [
            passage("zhongyong:9", "子曰：“天下国家可均也，爵禄可辞也，白刃可蹈也，中庸不可能也。”"),
            passage("zhongyong:10", "子路问强。子曰：“南方之强与？北方之强与？”"),
            passage("mengzi:7.14", "孟子曰：“求也为季氏宰……孔子曰：‘求非我徒也。’”"),  # Mencius speaks
            passage("zhongyong:39", "《诗》曰：“予怀明德。”子曰：“声色之于以化民，末也。”"),  # the ode first
            passage("zhongyong:1", "天命之谓性，率性之谓道"),
            passage("lunyu:6.29", "子曰：“中庸之为德也，其至矣乎！”"),
        ]
    )
    fused = [Fused(pid, 1.0 - n / 10) for n, pid in enumerate(table.order)]
    first = [f.id for f in book_first(fused, "lunyu", table, speakers=True)]
    assert first == ["zhongyong:9", "zhongyong:10", "lunyu:6.29", "mengzi:7.14", "zhongyong:39", "zhongyong:1"]
    themes = [f.id for f in book_first(fused, "lunyu", table)]  # a question about his views: the Analects
    assert themes[0] == "lunyu:6.29" and themes[1:] == [pid for pid in table.order if pid != "lunyu:6.29"]
    assert [f.id for f in book_first(fused, "mengzi", table, speakers=True)][0] == "mengzi:7.14"


def test_modern_words_bring_their_classical_terms_and_quotes_bring_none():
    assert expand_modern("年轻人值得敬畏") == "后生 畏"
    assert expand_modern("握着你的手，和你一起白头到老").split() == ["偕老", "执", "偕"]
    assert expand_modern("学而时习之，不亦说乎") == ""  # a classical line has no modern word
    assert expand_modern("") == ""
