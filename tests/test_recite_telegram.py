"""/recite through the real PTB application against the fake Bot API: the card, the answer as the next
message, the rating buttons (callback_query) pressed by the person and by someone else, a sticker
while a card is open, and a group where the card is answered by replying to it."""

from __future__ import annotations

from datetime import timedelta

from core.recite.cloze import BLANK
from core.storage.chatlog import aware
from tests.fakes.telegram_media import sticker
from tests.helpers_engine import sqlite_storage
from tests.helpers_recite import recite_engine
from tests.helpers_telegram import running_bot


def texts(tg, chat: int) -> list[str]:
    return [m.text for m in tg.messages_in(chat)]


async def test_a_card_its_answer_and_the_rating_buttons(tmp_path, tg):
    eng = recite_engine(sqlite_storage(tmp_path))
    async with running_bot(tg, eng.service):
        tg.private_text(7, "/recite")
        await tg.wait_for(lambda: any(BLANK in t for t in texts(tg, 7)), timeout=20)
        card = tg.messages_in(7)[0]
        assert "【背诵】" in card.text and card.reply_markup is None
        opened = eng.open_card("telegram:7")
        sticker(tg, 7, animated=True)  # not an answer: one line, the card stays open
        await tg.wait_for(lambda: len(tg.messages_in(7)) == 2, timeout=20)
        assert eng.open_card("telegram:7").card_id == opened.card_id
        tg.private_text(7, f"{opened.phrase}。")
        await tg.wait_for(lambda: any(t.startswith("✓") for t in texts(tg, 7)), timeout=20)
        result = next(m for m in tg.messages_in(7) if m.text.startswith("✓"))
        buttons = result.reply_markup["inline_keyboard"][0]
        assert [b["callback_data"].split()[-1] for b in buttons] == ["again", "hard", "good", "easy"]
        assert buttons[2]["text"].startswith("✓ ")  # "good": what a right answer was rated
        before = (await eng.deck.store.card(1, opened.card_id)).due  # type: ignore[union-attr]
        tg.callback(7, result.message_id, buttons[3]["callback_data"], user_id=7)  # easy
        await tg.wait_for(lambda: any("已改评为 easy" in t for t in texts(tg, 7)), timeout=20)
        after = (await eng.deck.store.card(1, opened.card_id)).due  # type: ignore[union-attr]
        assert aware(after) - aware(before) > timedelta(days=1)
        tg.callback(7, result.message_id, buttons[0]["callback_data"], user_id=99)  # not this person's card
        await tg.wait_for(lambda: any("不能再改" in t for t in texts(tg, 7)), timeout=20)
    assert (await eng.deck.store.card(1, opened.card_id)).due == after  # type: ignore[union-attr]
    assert len(tg.calls_to("answerCallbackQuery")) == 2


async def test_in_a_group_the_card_is_answered_by_replying_to_it_and_a_wrong_one_shows_the_passage(tmp_path, tg):
    eng = recite_engine(sqlite_storage(tmp_path))
    async with running_bot(tg, eng.service):
        tg.group_text(-100, "/recite", user_id=5)
        await tg.wait_for(lambda: any(BLANK in t for t in texts(tg, -100)), timeout=20)
        card = tg.messages_in(-100)[0]
        opened = eng.open_card("telegram:-100")
        tg.group_text(-100, "错" * len(opened.phrase), user_id=5, reply_to=card.message_id)
        await tg.wait_for(lambda: any(t.startswith("✗") for t in texts(tg, -100)), timeout=20)
    wrong = next(t for t in texts(tg, -100) if t.startswith("✗"))
    passage = eng.deck.passages[(await eng.deck.store.cards(1))[0].passage_id]
    assert opened.phrase in wrong and passage.ref in wrong and passage.text.splitlines()[0] in wrong
