"""Topic questions on a subject no theme lists (core/retrieval/subjects.py): the subject's words, the
books of the speaker, and the passages holding more of the subject first."""

from __future__ import annotations

import pytest

from core.retrieval.subjects import Subject, SubjectIndex
from core.retrieval.themes import ThemeIndex
from tests.fakes.retrieval_fixtures import real_passages


@pytest.fixture(scope="module")
def subjects() -> SubjectIndex:
    passages = real_passages()
    return ThemeIndex.load(
        (p.id, p.corpus, p.text, f"{p.meta.get('section', '')}·{p.title}") for p in passages
    ).subjects


@pytest.mark.parametrize(
    ("query", "terms", "corpus"),
    [
        ("孟子怎么评价伯夷和柳下惠？", ("伯夷", "柳下惠"), "mengzi"),
        ("孔子对管仲的看法", ("管仲",), "lunyu"),
        ("论语里关于管仲的章节有哪些", ("管仲",), "lunyu"),
        ("How is Guan Zhong judged by Confucius and Mencius?", ("管仲",), "lunyu,mengzi"),
        # a heading: a speaker, a marker, the subject (one character is a word)
        ("孟子论伯夷", ("伯夷",), "mengzi"),
        ("孔子论天", ("天",), "lunyu"),
        ("Confucius on death", ("死",), "lunyu"),
        # the subject names no book: the speaker's book is asked
        ("What does Mencius say about Confucius?", ("孔子", "仲尼"), "mengzi"),
    ],
)
def test_a_topic_question_on_an_unlisted_subject_names_its_words(subjects, query, terms, corpus):
    assert subjects.subject(query) == Subject(terms, corpus)


@pytest.mark.parametrize(
    "query",
    [
        "己所不欲，勿施于人",  # a classical line
        "孔子在陈国断粮时说了什么",  # a story: words the books do not hold
        "The ospreys cry to each other on the islet in the river",  # a description, not a subject
        "When three people walk together, one of them can be my teacher",
        "What did Confucius say about being in harmony without just agreeing with everyone?",
        "颜回",  # a name alone asks nothing
        "诗经里的江有汜讲了什么",  # a title question
        "《丘中有麻》写的是什么？",
        "The poem about the birth of Hou Ji, ancestor of the Zhou",  # "of the Zhou" is no view's object
        "Ode where a returning soldier remembers willows when he left and snow on his return",
    ],
)
def test_a_story_a_description_or_a_quote_has_no_subject(subjects, query):
    assert subjects.subject(query) is None


def test_the_passages_holding_more_of_the_subject_come_first(subjects):
    subject = subjects.subject("孟子怎么评价伯夷和柳下惠？")
    assert subject is not None
    texts = {p.id: p.text for p in real_passages()}
    ranked = [pid for pid, _ in subjects.ranking(subject)]
    both = [pid for pid in ranked if "伯夷" in texts[pid] and "柳下惠" in texts[pid]]
    assert both and ranked[: len(both)] == both and all(pid.startswith("mengzi:") for pid in ranked)
    one = ranked[len(both) :]
    assert one and all(("伯夷" in texts[pid]) != ("柳下惠" in texts[pid]) for pid in one)
    fused = list(reversed(ranked))  # a tie keeps the routes' order
    again = subjects.ranking(subject, fused=fused)
    for score in {s for _, s in again}:
        assert [p for p, s in again if s == score] == [p for p in fused if dict(again)[p] == score]
