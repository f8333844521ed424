"""The `gloss` route (core/retrieval/glosses.py): a tiny fixture gloss file, the loader's errors, and
that a query the glosses do not match (or a classical quote) is searched as without glosses."""

from __future__ import annotations

import json

import pytest

from core.retrieval import glosses as glosses_module
from core.retrieval.glosses import (
    GlossError,
    GlossIndex,
    english_tokens,
    load_glosses,
    load_stanzas,
    pairs,
    stanza_chars,
    stem,
)
from core.retrieval.indexer import build_index
from core.retrieval.snapshot import PassageTable
from core.retrieval.store import PassageStore
from core.retrieval.translate import wants_translation
from tests.fakes.retrieval_fixtures import HashingEmbedder, open_retriever, passage

DOCS = [
    passage("lunyu:1.1", "学而时习之，不亦说乎？有朋自远方来，不亦乐乎？"),
    passage("lunyu:1.4", "曾子曰：吾日三省吾身：为人谋而不忠乎？与朋友交而不信乎？传不习乎？"),
    passage("lunyu:2.7", "子游问孝。子曰：今之孝者，是谓能养。至于犬马，皆能有养；不敬，何以别乎？"),
    passage("shijing:73", "大车槛槛，毳衣如菼。岂不尔思？畏子不敢。", title="大车"),
]
GLOSSES = [
    {
        "id": "lunyu:1.4",
        "en": "Zengzi examines himself three times a day: was he loyal, did he keep his word to friends, did he practise what he was taught?",
        "zh": "曾子说每天多次反省自己：替人办事是否尽心，和朋友交往是否守信，老师教的是否温习。",
    },
    {
        "id": "lunyu:2.7",
        "en": "Asked by Ziyou about filial piety, Confucius says feeding one's parents is not enough; without respect it is no different from feeding dogs and horses.",
        "zh": "子游问孝，孔子说只是供养父母不够，不尊敬的话和养狗养马没有区别。",
    },
    {
        "id": "shijing:73",
        "en": "A woman tells her lover she longs for him but fears him; she swears they will share a grave.",
        "zh": "女子对情人说很想念他却不敢私奔，发誓活着不能同室，死后也要同穴。",
    },
]  # lunyu:1.1 has no gloss


def write(folder, rows, name="g1.jsonl"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8"
    )
    return folder


@pytest.fixture
def table(tmp_path):
    build_index(PassageStore(tmp_path / "db"), HashingEmbedder(), DOCS)
    return tmp_path / "db"


def test_loader_reads_every_file_and_skips_blank_lines(tmp_path):
    folder = write(tmp_path / "g", [GLOSSES[0], "", GLOSSES[1]])
    write(folder, [GLOSSES[2]], name="g2.jsonl")
    glosses = load_glosses(folder)
    assert sorted(glosses) == ["lunyu:1.4", "lunyu:2.7", "shijing:73"]
    assert glosses["lunyu:2.7"].zh.startswith("子游问孝")
    assert load_glosses(tmp_path / "missing") == {}  # no folder: no glosses, no error


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "lunyu:1.1", "en": "x"', "not JSON"),
        ('["lunyu:1.1", "x", "y"]', "expected an object"),
        ('{"id": "lunyu:1.1", "en": "x"}', "missing or empty zh"),
        ('{"id": "lunyu:1.1", "en": " ", "zh": "说"}', "missing or empty en"),
        ('{"id": "lunyu:1.1", "en": "' + "word " * 90 + '", "zh": "说"}', "too long"),
        (json.dumps(GLOSSES[0]), "glossed twice"),
    ],
)
def test_loader_names_file_and_line_of_a_bad_row(tmp_path, line, message):
    folder = write(tmp_path / "g", [GLOSSES[0], "", line])
    with pytest.raises(GlossError, match=rf"g1\.jsonl:3: .*{message}"):
        load_glosses(folder)


def test_english_tokens_join_pinyin_names_drop_stopwords_and_stem():
    assert english_tokens("What did Zi Lu say about the friends who lie?") == ["zilu", "friend", "lie"]
    assert english_tokens("Zilu") == ["zilu"]
    assert english_tokens("the petty man and filial piety") == ["petty", "man", "filial", "piety"]  # not names
    assert stem("studies") == "study" and stem("practising") == "practis" and stem("sons") == "sons"


def test_index_searches_english_and_modern_chinese_and_nothing_else(tmp_path):
    index = GlossIndex.load(PassageTable.from_passages(DOCS), write(tmp_path / "g", GLOSSES))
    assert len(index) == 3  # lunyu:1.1 has no gloss
    assert index.search("Did Zengzi check every day whether he kept his word to friends?", 5)[0][0] == "lunyu:1.4"
    assert index.search("What is wrong with only feeding your parents?", 5)[0][0] == "lunyu:2.7"
    assert index.search("光是养活父母算不算孝呢？", 5)[0][0] == "lunyu:2.7"
    assert {i for i, _ in index.search("光是养活父母算不算孝呢？", 5, corpus="shijing")} <= {"shijing:73"}
    assert index.search("Which poem is about a lover who swears to share a grave?", 5)[0][0] == "shijing:73"
    assert index.search("Which poem is about a lover who swears to share a grave?", 5, corpus="lunyu") == []
    assert index.search("学而时习之", 5) == []  # a classical quote: not this route's
    assert not index.wants("子游问孝的时候，孔子是怎么回答的？")  # quotes 子游问孝 (4 characters in a row)
    assert index.wants("子游问怎样才算孝顺的时候，孔子怎么说的？")
    assert index.search("quantum chromodynamics", 5) == []  # no gloss matches: no votes


async def test_route_is_fused_only_where_it_applies(table, tmp_path, monkeypatch):
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", tmp_path / "none")
    plain = await open_retriever(table)
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g", GLOSSES))
    glossed = await open_retriever(table)

    response = await glossed.search("What did Confucius say about respecting parents, not just feeding them?", k=4)
    assert response.results[0].id == "lunyu:2.7" and "gloss" in response.results[0].routes
    assert (
        "gloss" not in (await plain.search("What did Confucius say about respecting parents?", k=4)).results[0].routes
    )

    topic = "What did Confucius say about filial piety?"  # a topic question: the theme route's, not this one's
    assert "gloss" not in {route for r in (await glossed.search(topic, k=4)).results for route in r.routes}
    for query in ("学而时习之", "quantum chromodynamics", "大车", "🙂", topic):  # quote, no match, title, no words
        before = [(r.id, r.routes) for r in (await plain.search(query, k=4)).results]
        after = [(r.id, r.routes) for r in (await glossed.search(query, k=4)).results]
        assert after == before, query


PROSE = "我每天多次反省自己，替人办事要尽心，和朋友交往要守信，老师教过要温习。"  # a 白话 translation, no question word


def test_modern_prose_without_a_question_word_is_searched_in_the_glosses(tmp_path):
    index = GlossIndex.load(PassageTable.from_passages(DOCS), write(tmp_path / "g", GLOSSES))
    assert not wants_translation(PROSE)  # no 的/吗/什么…: only the prose rule lets it in
    assert index.is_modern_prose(PROSE) and index.wants(PROSE)
    assert index.search(PROSE, 5)[0][0] == "lunyu:1.4"
    for classical in ("吾日三省吾身，为人谋而不忠乎", "吾日三省吾身为人谋不忠乎", "曾子曰吾日三省"):  # quote, misquote
        assert not index.is_modern_prose(classical) and index.search(classical, 5) == []
    assert not index.is_modern_prose("反省自己")  # under PROSE_MIN_PAIRS pairs: too short to tell
    assert pairs("反省自己，守信") == ["反省", "省自", "自己", "守信"]  # not across punctuation


async def test_a_pasted_translation_is_fused_with_the_gloss_route(table, tmp_path, monkeypatch):
    monkeypatch.setattr(glosses_module, "GLOSS_DIR", write(tmp_path / "g", GLOSSES))
    retriever = await open_retriever(table)
    response = await retriever.search(PROSE, k=4)
    assert response.results[0].id == "lunyu:1.4" and response.results[0].routes.get("gloss") == 1


# Stanza renderings (data/glosses/stanzas/): a pasted translation of one stanza of a long poem.
POEMS = [
    passage(
        "shijing:112",
        "坎坎伐檀兮，置之河之干兮。河水清且涟猗。不稼不穑，胡取禾三百廛兮？\n"
        "坎坎伐辐兮，置之河之侧兮。河水清且直猗。不稼不穑，胡取禾三百亿兮？",
        title="伐檀",
    ),
    passage(
        "shijing:209",
        "楚楚者茨，言抽其棘。自昔何为？我艺黍稷。\n我仓既盈，我庾维亿。以为酒食，以享以祀。",
        title="楚茨",
    ),
]
POEM_GLOSSES = [
    {"id": "shijing:112", "en": "Woodcutters protest against lords who neither sow nor reap yet take the grain.",
     "zh": "伐木人质问不劳动的贵族凭什么拿走粮食，讽刺不劳而获。"},
    {"id": "shijing:209", "en": "A harvest sacrifice to the ancestors, with wine and food offered for blessings.",
     "zh": "丰收以后祭祀祖先，献上酒食，祈求福禄。"},
]  # fmt: skip
STANZAS = [
    {"id": "shijing:112", "stanza": 1, "en": "Chop, chop, we fell the sandalwood and lay it on the bank; the water runs clear with ripples.",
     "zh": "叮叮当当地砍伐檀树，把木材放在河岸边，河水清清泛起波纹。你们不耕种也不收割，凭什么拿走三百户的粮食？"},
    {"id": "shijing:112", "stanza": 2, "en": "Chop, chop, we cut wood for wheel spokes and lay it by the river.",
     "zh": "叮叮当当地砍木头做车辐，把它放在河边，河水清清地直流。你们不耕种也不收割，凭什么拿走三百捆庄稼？"},
    {"id": "shijing:209", "stanza": 2, "en": "Our granaries are full, our stacks beyond counting; we make wine and food for the sacrifice.",
     "zh": "我的粮仓已经装满，露天的粮囤数以亿计，用来做成酒食，献给祖先祭祀。"},
]  # fmt: skip


def stanza_folder(tmp_path, stanzas=STANZAS):
    folder = write(tmp_path / "g", GLOSSES + POEM_GLOSSES)
    write(folder / "stanzas", stanzas, name="s1.jsonl")
    return folder


def test_stanza_loader_orders_by_stanza_and_names_bad_rows(tmp_path):
    folder = stanza_folder(tmp_path, [STANZAS[1], STANZAS[0], STANZAS[2]])
    stanzas = load_stanzas(folder)
    assert [g.stanza for g in stanzas["shijing:112"]] == [1, 2] and stanzas["shijing:209"][0].stanza == 2
    assert load_stanzas(tmp_path / "g" / "none") == {} and "shijing:112" in load_glosses(folder)  # no folder: none
    for bad, message in (
        ({**STANZAS[0], "stanza": 0}, "stanza must be a positive integer"),
        ({**STANZAS[0], "stanza": "1"}, "stanza must be a positive integer"),
        ({**STANZAS[0], "zh": ""}, "missing or empty zh"),
        (STANZAS[0], "rendered twice"),
    ):
        with pytest.raises(GlossError, match=message):
            load_stanzas(stanza_folder(tmp_path, [STANZAS[0], bad]))


def test_a_stanza_translation_finds_its_poem_and_questions_are_scored_as_without_stanzas(tmp_path):
    passages = PassageTable.from_passages(DOCS + POEMS)
    plain = GlossIndex.load(passages, write(tmp_path / "plain", GLOSSES + POEM_GLOSSES))
    index = GlossIndex.load(passages, stanza_folder(tmp_path))
    pasted = "叮叮当当砍木头做车辐，放在河边，河水又清又直。你们不种地不收割，凭什么拿走三百捆的庄稼？"
    assert index.search(pasted, 5)[0][0] == "shijing:112"
    assert index.search(pasted, 5)[0][1] > plain.search(pasted, 5)[0][1]  # its stanza beats the poem's gloss
    rendering = "Chop, chop, we cut wood for the spokes of wheels and lay it down by the river"
    assert index.search(rendering, 5)[0][0] == "shijing:112" and plain.search(rendering, 5) == []
    # a question shorter than any stanza, and an English question, score as without stanzas: the
    # glosses are a collection of their own, so the stanzas change none of their statistics
    for question in ("诗经里讽刺不劳而获的诗", "哪首诗写粮仓装满了？", "Which poem mocks lords with full granaries?"):
        assert index.search(question, 5) == plain.search(question, 5), question
    assert index.search("Our granaries are full and our stacks are beyond counting", 5)[0][0] == "shijing:209"


def test_every_stanza_of_the_songs_has_one_rendering(corpus_dir):
    from core.retrieval.documents import load_corpus

    poems = {p.id: p for p in load_corpus(corpus_dir) if p.corpus == "shijing"}
    stanzas = {pid: rows for pid, rows in load_stanzas().items() if pid in poems}
    expected = {(pid, n) for pid, p in poems.items() if len(parts := [s for s in p.text.split("\n") if s.strip()]) > 1
                for n in range(1, len(parts) + 1)}  # fmt: skip
    assert {(pid, g.stanza) for pid, rows in stanzas.items() for g in rows} == expected
    assert all(stanza_chars(poems[pid], g.stanza) >= 8 for pid, rows in stanzas.items() for g in rows)
