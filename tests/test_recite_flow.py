"""/recite through the real ChatService with memory (SQLite and PostgreSQL): cards, answers, ratings,
the deck commands, bad input, /forget all, /memories and /link."""

from __future__ import annotations

import pytest

from core.events import Notice
from core.language.script import ScriptConverter
from core.recite.cloze import BLANK
from core.recite.deck import STARTER
from core.storage import Storage, open_database
from core.types import Incoming
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.helpers_engine import collect
from tests.helpers_recite import recite_engine


@pytest.fixture
def eng(database_url):  # noqa: F811
    return recite_engine(Storage(open_database(database_url)))


def msg(text: str, *, user: str = "yan", chat: str = "dm-yan", command: str | None = None, group=False) -> Incoming:
    return Incoming(
        platform="console", user_id=user, chat_id=chat, text=text, user_name=user, command=command, is_group=group
    )


async def said(eng, message: Incoming) -> Notice:
    events = await collect(eng.service, message)
    assert len(events) == 1 and isinstance(events[0], Notice), events
    return events[0]


async def recite(eng, args: str = "", **kw) -> Notice:
    return await said(eng, msg(args, command="recite", **kw))


async def test_an_empty_deck_starts_from_the_starter_deck_of_the_loaded_books(eng):
    card = await recite(eng)
    assert f"{len(STARTER)}" in card.text and all(b in card.text for b in ("论语", "诗经", "孟子", "大学", "中庸"))
    listed = await recite(eng, "list")
    assert listed.extra["count"] == len(STARTER)
    shown = card.extra["recite"]["shown"]
    opened = eng.open_card("console:dm-yan")
    assert shown == opened.line.replace(opened.phrase, BLANK * len(opened.phrase), 1)


async def test_a_right_answer_in_traditional_with_other_punctuation_is_good(eng):
    await recite(eng)
    opened = eng.open_card("console:dm-yan")
    traditional = ScriptConverter().traditional(opened.phrase)
    result = await said(eng, msg(f"  {traditional}！"))
    assert result.text.startswith("✓"), result.text
    assert result.extra["current"] == "good" and result.extra["recite"]["right"] is True
    assert [a[2].split()[-1] for a in result.extra["actions"]] == ["again", "hard", "good", "easy"]
    # the next message is a question again: no card is open
    assert await eng.deck.store.take_open("console:dm-yan", 1) is None


async def test_a_wrong_character_shows_the_words_and_the_whole_passage_with_its_citation(eng):
    await recite(eng)
    opened = eng.open_card("console:dm-yan")
    wrong = "错" + opened.phrase[1:] if opened.phrase[0] != "错" else "对" + opened.phrase[1:]
    result = await said(eng, msg(wrong))
    passage = eng.deck.passages[(await eng.deck.store.card(1, opened.card_id)).passage_id]  # type: ignore[union-attr]
    assert result.text.startswith("✗") and f"「{opened.phrase}」" in result.text
    assert passage.text in result.text and passage.ref in result.text
    assert result.extra["current"] == "again" and result.extra["recite"]["right"] is False


async def test_a_second_recite_replaces_the_open_card_and_says_so_once(eng):
    await recite(eng)
    second = await recite(eng)
    assert second.text.count("上一张卡作废") == 1 and second.extra["recite"]["replaced"]
    third_card = eng.open_card("console:dm-yan")
    result = await said(eng, msg(third_card.phrase))
    assert result.text.startswith("✓")


async def test_empty_and_huge_answers_keep_the_card_open(eng):
    await recite(eng)
    opened = eng.open_card("console:dm-yan")
    for text in ("？！……", "🙂", "长" * 500):
        notice = await said(eng, msg(text))
        assert notice.extra["recite"]["open"] and "卡仍在等你" in notice.text
    assert eng.open_card("console:dm-yan").card_id == opened.card_id
    assert (await said(eng, msg(opened.phrase))).text.startswith("✓")


async def test_an_answer_after_the_card_expired_is_told_so_and_a_question_is_a_question(eng):
    await recite(eng)
    opened = eng.open_card("console:dm-yan")
    eng.clock.advance(minutes=31)
    expired = await said(eng, msg(opened.phrase))
    assert "过期" in expired.text and "/recite" in expired.text
    await recite(eng)
    eng.clock.advance(minutes=31)
    events = await collect(eng.service, msg("什么是仁？请夫子讲一讲这个道理"))
    assert not any(isinstance(e, Notice) and "过期" in e.text for e in events)  # answered as a question


async def test_ratings_change_by_command_and_by_button_but_only_the_persons_newest(eng):
    await recite(eng)
    opened = eng.open_card("console:dm-yan")
    result = await said(eng, msg(opened.phrase))
    review = result.extra["recite"]["review"]
    due_good = (await eng.deck.store.card(1, opened.card_id)).due  # type: ignore[union-attr]
    easy = await recite(eng, f"rate {review} easy")
    assert easy.extra["current"] == "easy"
    due_easy = (await eng.deck.store.card(1, opened.card_id)).due  # type: ignore[union-attr]
    assert due_easy > due_good
    again = await recite(eng, "easy")  # the same again (a button pressed twice): the same due date
    assert (await eng.deck.store.card(1, opened.card_id)).due == due_easy  # type: ignore[union-attr]
    assert again.extra["current"] == "easy"
    other = await recite(eng, f"rate {review} again", user="zilu", chat="dm-zilu")
    assert other.extra.get("refused") and "不能再改" in other.text


async def test_add_by_id_and_by_words_list_remove_and_stats(eng):
    added = await recite(eng, "add lunyu:9.28")
    assert added.extra == {"passage": "lunyu:9.28", "added": True}
    again = await recite(eng, "add LUNYU:9.28")
    assert again.extra["added"] is False and "已在卡组里" in again.text
    words = await recite(eng, "add 关关雎鸠，在河之洲")
    assert words.extra["passage"] == "shijing:1"
    missing = await recite(eng, "add mengzi:99.99")
    assert missing.extra["found"] is False
    listed = await recite(eng, "list")
    assert listed.extra["count"] == 2 and listed.text.index("lunyu:9.28") < listed.text.index("shijing:1")
    removed = await recite(eng, "remove 1")
    assert removed.extra["passage"] == "lunyu:9.28"
    assert "没有第 5 张" in (await recite(eng, "remove 5")).text
    card = await recite(eng)
    assert card.extra["recite"]["passage"] == "shijing:1"
    await said(eng, msg(eng.open_card("console:dm-yan").phrase))
    stats = await recite(eng, "stats")
    assert stats.extra["stats"]["reviewed"] == 1 and stats.extra["stats"]["retention"] == 1.0
    assert stats.extra["stats"]["cards"] == 1 and "100%" in stats.text


async def test_remind_is_set_in_private_chats_and_refused_in_groups(eng):
    refused = await recite(eng, "remind 08:00", chat="g1", group=True)
    assert refused.extra["refused"] and "私" in refused.text
    bad = await recite(eng, "remind 25:00")
    assert bad.extra["refused"]
    ok = await recite(eng, "remind 7:30 Asia/Taipei")
    assert ok.extra["remind"] == "07:30" and "Asia/Taipei" in ok.text
    reminder = await eng.deck.store.reminder(1)
    assert reminder is not None and reminder.chat_key == "console:dm-yan"
    assert (await recite(eng, "remind off")).extra["remind"] is None
    assert "本来就没有" in (await recite(eng, "remind off")).text


async def test_memories_names_the_deck_and_forget_all_deletes_it(eng):
    await recite(eng)
    await recite(eng, "remind 08:00")
    memories = await said(eng, msg("", command="memories"))
    assert "背诵卡组" in memories.text
    gone = await said(eng, msg("all", command="forget"))
    assert gone.extra["cards"] > 0 and "背诵卡" in gone.text
    assert await eng.deck.store.count(1) == 0 and await eng.deck.store.reminder(1) is None
    assert await eng.deck.store.take_open("console:dm-yan", 1) is None
    assert "背诵卡组" not in (await said(eng, msg("", command="memories"))).text


async def test_a_deck_follows_the_person_across_linked_accounts(eng):
    await said(eng, Incoming(platform="telegram", user_id="t1", chat_id="t1", text="", command="recite"))
    issued = await said(eng, Incoming(platform="telegram", user_id="t1", chat_id="t1", text="", command="link"))
    code = issued.extra["code"]
    await said(eng, Incoming(platform="discord", user_id="d1", chat_id="d1", text="add lunyu:4.8", command="recite"))
    linked = await said(eng, Incoming(platform="discord", user_id="d1", chat_id="d1", text=code, command="link"))
    assert linked.extra["status"] == "linked"
    listed = await said(eng, Incoming(platform="discord", user_id="d1", chat_id="d1", text="list", command="recite"))
    assert "lunyu:4.8" in listed.text and "lunyu:1.1" in listed.text  # the Telegram account's starter deck too
