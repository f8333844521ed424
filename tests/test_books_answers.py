"""The Four Books where Fuzi cites: search and its selections, the Songs a book quotes, variant
characters, the texts-only (L2) answer, a book it does not read, and the daily passage narrowed to
some books with `/settings books`."""

from __future__ import annotations

import shutil
from datetime import date, time

import pytest

from core.books import load_corpus
from core.schedule.passage import DailyPassage
from core.schedule.ports import ChatSchedule
from core.schedule.store import RotationRepo
from core.skills import SkillRegistry
from core.storage import open_database
from core.tools.classics import classics_tools
from core.tools.tool import ToolContext
from core.tools.toolset import Toolset
from tests.fakes.retrieval_fixtures import build_real_index, corpus_dir, open_retriever
from tests.helpers_engine import collect, final_of, incoming, make_service, notices, sqlite_storage

CTX = ToolContext(person_id=1, platform="console", chat_id="c", is_group=False, trace_id="t")


@pytest.fixture(scope="module")
def real_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("lancedb")
    build_real_index(path)
    return path


@pytest.fixture(scope="module")
def two_books_index(tmp_path_factory):
    """An index built from a corpus folder holding only lunyu.json and shijing.json."""
    from core.retrieval.embedder import HashingEmbedder
    from core.retrieval.indexer import build_index
    from core.retrieval.store import PassageStore

    folder = tmp_path_factory.mktemp("corpus")
    for name in ("lunyu.json", "shijing.json"):
        shutil.copy(corpus_dir() / name, folder / name)
    path = tmp_path_factory.mktemp("lancedb2")
    build_index(PassageStore(path), HashingEmbedder(), load_corpus(folder), rebuild=True)
    return path


async def test_quotes_of_each_book_find_their_passage(real_index):
    retriever = await open_retriever(real_index)
    for query, pid in [
        ("五十步笑百步", "mengzi:1.3"),
        ("民为贵，社稷次之，君为轻", "mengzi:14.14"),
        ("大学之道，在明明德", "daxue:1"),
        ("天命之谓性，率性之谓道", "zhongyong:1"),
        ("鱼我所欲也，熊掌亦我所欲也", "mengzi:11.10"),
    ]:
        assert (await retriever.search(query, k=3)).results[0].id == pid, query


async def test_a_variant_character_typed_the_modern_way_finds_the_line(real_index):
    retriever = await open_retriever(real_index)
    top = (await retriever.search("今以其昏昏，使人昭昭", k=3)).results[0]
    assert top.id.startswith("mengzi:14.") and "昬昬" in top.text


async def test_a_line_the_books_quote_from_the_songs_cites_the_poem_first_and_finds_both(real_index):
    retriever = await open_retriever(real_index)
    ids = [r.id for r in (await retriever.search("如切如磋，如琢如磨", k=5)).results]
    assert ids.index("shijing:55") < ids.index("daxue:4")  # 淇奥 is the source, 《大学》 quotes it
    where = [r.id for r in (await retriever.search("孟子在哪里引用了经始灵台", k=5)).results]
    assert {"mengzi:1.2", "shijing:242"} <= set(where)


async def test_a_book_named_as_a_title_is_the_scope_not_a_word_to_match(real_index):
    """《中庸》为什么把诚看得那么重 asks for the 中庸's chapters on 诚, not for those that say 中庸."""
    retriever = await open_retriever(real_index)
    results = (await retriever.search("《中庸》为什么把“诚”看得那么重？", k=5)).results
    assert all(r.id.startswith("zhongyong:") for r in results)
    assert sum("诚" in r.text for r in results) >= 4 and not any("中庸" in r.text for r in results), [
        r.id for r in results
    ]
    assert (await retriever.search("大学之道，在明明德", k=1)).results[0].id == "daxue:1"  # a quote: searched whole


async def test_selections_keep_to_their_books(real_index):
    retriever = await open_retriever(real_index)
    sishu = await retriever.search("君子", k=20, corpus="sishu")
    assert sishu.results and {r.id.split(":")[0] for r in sishu.results} <= {"lunyu", "mengzi", "daxue", "zhongyong"}
    mencius = await retriever.search("仁", k=10, corpus="mengzi")
    assert mencius.results and all(r.id.startswith("mengzi:") for r in mencius.results)
    with pytest.raises(ValueError, match="sishu"):
        await retriever.search("仁", corpus="xunzi")


async def test_the_texts_only_answer_quotes_mencius_as_mencius(tmp_path, real_index):
    service = make_service(sqlite_storage(tmp_path), retriever=await open_retriever(real_index))
    final = final_of(await collect(service, incoming("孟子说民为贵是什么意思？")))
    assert final.level == 2 and "mengzi:14.14" in [c.id for c in final.citations]
    assert "《孟子·尽心下》第14章：「" in final.text  # introduced by its reference, never as the Master's words


async def test_a_book_fuzi_does_not_read_is_named_not_pretended(tmp_path, real_index):
    retriever = await open_retriever(real_index)
    response = await retriever.search("荀子说人性本恶，对吗？", k=3)
    assert response.unheld == ("荀子",) and set(response.held) == {"lunyu", "shijing", "mengzi", "daxue", "zhongyong"}
    service = make_service(sqlite_storage(tmp_path), retriever=retriever)
    final = final_of(await collect(service, incoming("荀子说人性本恶，对吗？")))
    assert "《荀子》不在其中" in final.text.splitlines()[0] and "《孟子》" in final.text.splitlines()[0]
    outcome = await Toolset(classics_tools(retriever)).call("search_classics", {"query": "What does Xunzi say?"}, CTX)
    assert outcome.ok and "does not hold Xunzi" in outcome.content["note"]
    plain = await Toolset(classics_tools(retriever)).call("search_classics", {"query": "仁"}, CTX)
    assert "note" not in plain.content


async def test_with_only_the_two_old_books_a_mencius_question_says_which_books_it_reads(tmp_path, two_books_index):
    retriever = await open_retriever(two_books_index)
    service = make_service(sqlite_storage(tmp_path), retriever=retriever)
    final = final_of(await collect(service, incoming("孟子说民为贵是什么意思？")))
    first = final.text.splitlines()[0]
    assert first == "吾所读之书为《论语》《诗经》，《孟子》不在其中，不敢凭记忆引其原文。"
    assert all(not c.id.startswith("mengzi") for c in final.citations)


async def test_settings_books_narrows_the_daily_passage(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    [refused] = notices(await collect(service, incoming("books xunzi", command="settings")))
    assert "xunzi" in refused.text and "mengzi" in refused.text and "\n" not in refused.text
    [changed] = notices(await collect(service, incoming("books 孟子、daxue", command="settings")))
    assert changed.extra["settings"]["books"] == "mengzi,daxue"
    assert (await storage.settings.fresh("console:c1")).books == ("mengzi", "daxue")
    [back] = notices(await collect(service, incoming("books all", command="settings")))
    assert back.extra["settings"]["books"] == "all" and (await storage.settings.fresh("console:c1")).books is None

    engine = open_database(f"sqlite:///{tmp_path / 'rotation.sqlite3'}")
    daily = DailyPassage(load_corpus(corpus_dir()), RotationRepo(engine), SkillRegistry(), None)
    chat = ChatSchedule("console:c1", daily_at=time(8), books=("mengzi",))
    for day in range(1, 15):
        picked = await daily.pick(chat, date(2026, 12, day))
        assert picked.id.startswith("mengzi:")
        await daily.mark_shown(chat, picked.id)
    engine.dispose()
