"""/recite through real discord.py against the fake Discord: the slash command opens a card, the next
DM message answers it, the rating buttons (components) answer the clicker ephemerally — twice the same,
and a stranger's click changes nothing."""

from __future__ import annotations

from core.recite.cloze import BLANK
from core.storage.chatlog import aware
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.helpers_discord import running_bot
from tests.helpers_engine import sqlite_storage
from tests.helpers_recite import recite_engine


def _buttons(message: dict) -> list[tuple[str, str, int]]:
    return [(b["custom_id"], b["label"], b["style"]) for row in message["components"] for b in row["components"]]


async def test_slash_recite_answer_in_the_dm_and_rating_buttons(tmp_path, fake_discord: FakeDiscord):
    eng = recite_engine(sqlite_storage(tmp_path))
    dm = fake_discord.dm_channel_id
    async with running_bot(fake_discord, eng.service):
        inter = await fake_discord.slash("recite", dm=True)
        await fake_discord.wait_until(lambda: BLANK in (fake_discord.original(inter["token"]) or {}).get("content", ""))
        opened = eng.open_card(f"discord:{dm}")
        await fake_discord.user_message(opened.phrase, dm=True)
        await fake_discord.wait_until(
            lambda: any(m["content"].startswith("✓") for m in fake_discord.channel_messages(dm)), timeout=20
        )
        result = next(m for m in fake_discord.channel_messages(dm) if m["content"].startswith("✓"))
        buttons = _buttons(result)
        assert [b[0].rsplit(" ", 1)[-1] for b in buttons] == ["again", "hard", "good", "easy"]
        assert [b[2] for b in buttons] == [2, 2, 1, 2]  # "good" highlighted: a right answer's rating
        card_id = opened.card_id
        good_due = aware((await eng.deck.store.card(1, card_id)).due)  # type: ignore[union-attr]
        clicks = [await fake_discord.click(result, buttons[3][0]) for _ in range(2)]  # easy, pressed twice
        for click in clicks:
            await fake_discord.wait_until(
                lambda click=click: fake_discord.calls("POST", rf"/interactions/{click['id']}/.+/callback$"), timeout=20
            )
        easy_due = aware((await eng.deck.store.card(1, card_id)).due)  # type: ignore[union-attr]
        human = fake_discord.human
        fake_discord.human = dict(human, id="999999999999999999", username="stranger")
        stranger = await fake_discord.click(result, buttons[0][0])
        await fake_discord.wait_until(
            lambda: fake_discord.calls("POST", rf"/interactions/{stranger['id']}/.+/callback$"), timeout=20
        )
        fake_discord.human = human
    bodies = [fake_discord.calls("POST", rf"/interactions/{c['id']}/.+/callback$")[0].body for c in clicks]
    assert all(b["type"] == 4 and b["data"]["flags"] == 64 and "已改评为 easy" in b["data"]["content"] for b in bodies)
    (refused,) = fake_discord.calls("POST", rf"/interactions/{stranger['id']}/.+/callback$")
    assert "不能再改" in refused.body["data"]["content"] and refused.body["data"]["flags"] == 64
    assert easy_due > good_due and aware((await eng.deck.store.card(1, card_id)).due) == easy_due  # type: ignore[union-attr]
    assert result["content"].startswith("✓")  # the message with the buttons is left as it was
