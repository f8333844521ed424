"""The subject index (core/retrieval/subjects.py): the data files, the names a question holds, and the
topic questions it answers where no theme list does."""

from __future__ import annotations

import functools
import json

import pytest

from core.retrieval.subjects import SubjectError, SubjectIndex
from core.retrieval.themes import SUBJECTS, ThemeIndex
from core.retrieval.topic_forms import subject_runs
from tests.fakes.retrieval_fixtures import build_real_index, open_retriever, real_passages


def _write(folder, rows):
    folder.mkdir(exist_ok=True)
    (folder / "t1.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")


def _topic(zh, en):
    return {"zh": zh, "en": en}


TEXTS = {
    "lunyu:1.1": "子曰：学而时习之。",
    "lunyu:5.25": "子曰：巧言令色足恭，左丘明耻之。",
    "lunyu:6.3": "不迁怒，不贰过。",
    "lunyu:12.21": "一朝之忿，忘其身。",
    "shijing:52": "相鼠有皮，人而无仪。",
    "shijing:200": "彼谮人者，谁适与谋。",
}
ROWS = [
    {"id": "lunyu:1.1", "topics": [_topic(["学习"], ["learning"])]},
    {"id": "lunyu:5.25", "topics": [_topic(["巧言令色"], ["flattery"]), _topic(["学习"], ["learning"])]},
    {"id": "lunyu:6.3", "topics": [_topic(["颜回"], ["yan hui"]), _topic(["愤怒", "怒"], ["anger"])]},
    {"id": "lunyu:12.21", "topics": [_topic(["愤怒", "生气"], ["anger", "angry"])]},
    {"id": "shijing:52", "topics": [_topic(["讽刺"], ["satire"]), _topic(["巧言令色"], ["flattery"])]},
    {"id": "shijing:200", "topics": [_topic(["愤怒", "怨恨"], ["anger", "old age"])]},
    {"id": "lunyu:99.9", "topics": [_topic(["愤怒"], ["anger"])]},  # no such passage here: left out
]


@pytest.fixture
def index(tmp_path):
    _write(tmp_path / "subjects", ROWS)
    return SubjectIndex.load(tmp_path / "subjects", TEXTS)


def test_a_name_lists_its_passages_main_subject_first_then_in_corpus_order(index):
    (anger,) = index.find(["愤怒"], [])
    assert anger.ids == ("lunyu:12.21", "shijing:200", "lunyu:6.3")  # 6.3 has it second; 99.9 is no passage
    assert not index.find(["生气"], [])  # a name of one passage is that passage's question, no subject
    assert not index.find(["颜回"], [])


def test_english_names_match_whole_words_with_a_plural_as_the_singular(index):
    (found,) = index.find([], ["what did the sages say of anger"])
    assert found.en == "anger" and found.ids[0] == "lunyu:12.21" and not found.zh
    assert [s.en for s in index.find([], ["angers"])] == ["angers"]
    assert not index.find([], ["danger"]) and not index.find([], ["angry"])  # never inside a word; one passage


def test_the_longest_name_wins_and_one_character_counts_only_as_a_run_of_its_own(tmp_path):
    _write(tmp_path / "s", [{"id": pid, "topics": [_topic(["天", "天命"], ["heaven"])]} for pid in TEXTS])
    index = SubjectIndex.load(tmp_path / "s", TEXTS)
    assert [s.zh for s in index.find(["天命观"], [])] == [("天命",)]
    assert [s.zh for s in index.find(["天"], [])] == [("天",)]
    assert not index.find(["今天", "天气"], [])  # 天 inside a longer run is another word


def test_a_name_that_is_a_lines_words_is_a_saying(index):
    (found,) = index.find(["巧言令色"], [])
    assert found.saying and found.ids == ("lunyu:5.25", "shijing:52")


def test_the_question_runs_leave_out_the_words_that_say_nothing_more():
    assert subject_runs("孔子到底怎么看待愤怒啊", "") == (["愤怒"], [])
    zh, en = subject_runs("", "what does mencius say about old age?")
    assert [r.strip() for r in en] == ["old age"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ('{"id": "lunyu:1.1"}', "expected"),
        ('{"id": "lunyu:1.1", "topics": []}', "1–5 subjects"),
        ('{"id": "lunyu:1.1", "topics": [{"zh": ["Anger"], "en": ["anger"]}]}', "1–5 subjects"),
        ('{"id": "lunyu:1.1", "topics": [{"zh": ["愤怒"], "en": []}]}', "1–5 subjects"),
    ],
)
def test_a_malformed_line_is_an_error_naming_file_and_line(tmp_path, line, message):
    (tmp_path / "t1.jsonl").write_text(
        '{"id": "lunyu:5.25", "topics": [{"zh": ["学习"], "en": ["learning"]}]}\n' + line
    )
    with pytest.raises(SubjectError, match=message) as error:
        SubjectIndex.load(tmp_path, TEXTS)
    assert "t1.jsonl:2" in str(error.value)


def test_a_passage_indexed_twice_is_an_error(tmp_path):
    _write(tmp_path / "s", [ROWS[0], ROWS[0]])
    with pytest.raises(SubjectError, match="indexed twice"):
        SubjectIndex.load(tmp_path / "s", TEXTS)


def test_a_damaged_index_is_logged_and_the_themes_serve_without_it(tmp_path):
    from structlog.testing import capture_logs

    (tmp_path / "t1.jsonl").write_text("not json\n", "utf-8")
    with capture_logs() as logs:
        themes = ThemeIndex.of(real_passages(), tmp_path)
    assert themes.subjects is None and [e["event"] for e in logs] == ["subjects_unreadable"]
    assert "t1.jsonl:1" in logs[0]["reason"]
    assert themes.recognise("孔子怎么看愤怒") is None and themes.recognise("孔子怎么论孝？") is not None


def test_every_passage_of_the_five_books_is_indexed_once():
    passages = real_passages()
    rows = [json.loads(line) for path in sorted(SUBJECTS.glob("*.jsonl")) for line in path.open(encoding="utf-8")]
    assert sorted(r["id"] for r in rows) == sorted(p.id for p in passages)
    index = SubjectIndex.load(SUBJECTS, {p.id: p.text for p in passages})
    assert len(index) > 1000


@functools.cache
def _themes():
    return ThemeIndex.of(real_passages())


@pytest.mark.parametrize(
    ("query", "corpus", "name"),
    [
        ("孔子心中的天", "lunyu", "天"),
        ("孔子怎么看愤怒？", "lunyu", "愤怒"),
        ("诗经里的兄弟之情", "shijing", "兄弟"),
        ("孔子在饮食上有什么讲究", "lunyu", "饮食"),
        ("Are there hunting poems in the Book of Songs?", "shijing", "hunting"),
        ("Confucian views on death", "all", "death"),
    ],
)
def test_a_topic_question_no_theme_list_names_takes_the_subject_index(query, corpus, name):
    topic = _themes().recognise(query)
    assert topic is not None and topic.corpus == corpus and [t.name for t in topic.themes] == [name]
    assert topic.indexed and topic.listing and topic.qualified  # ranked by its words among the subject's passages


@pytest.mark.parametrize(
    "query",
    [
        "Which poem is about a woman whose husband courted her with cloth?",  # one poem: says more
        "诗经里写秦国军队同仇敌忾的诗",  # a list narrowed by its other words: the routes choose
        "巧言令色",  # a line's words: a quote
        "今天天气怎么样",
        "What did Confucius say about music?",  # a theme list names it: that list, as before
    ],
)
def test_other_questions_take_no_subject(query):
    themes = _themes()
    topic = themes.recognise(query)
    assert topic is None or set(topic.themes) <= set(themes.themes)


@pytest.fixture(scope="module")
def real_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("subjects")
    build_real_index(path)
    return path


async def test_the_answer_to_a_subject_question_is_the_subjects_passages(real_index):
    retriever = await open_retriever(real_index)
    indexed = set(_themes().subjects.find(["饮食"], [])[0].ids)  # type: ignore[union-attr]
    response = await retriever.search("孔子在饮食上有什么讲究", k=5)
    ids = [r.id for r in response.results]
    assert response.topic == "饮食"  # a survey: the answer names several passages (core/engine/ladder.py)
    assert len(ids) == 5 and set(ids) <= indexed and all(pid.startswith("lunyu:") for pid in ids)
