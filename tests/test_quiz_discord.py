"""/quiz on Discord through the real discord.py against the fake gateway and REST: a message with one
button per option, each press answered ephemerally, each person scored once, the score shown when the
quiz closes, a press after the close refused in one line."""

from __future__ import annotations

from datetime import timedelta

from adapters.discord.poster import DiscordPoster
from core.schedule.ports import Posters
from core.texts import say
from tests.fakes import discord_payloads as p
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.helpers_discord import running_bot
from tests.helpers_engine import make_service, sqlite_storage
from tests.helpers_quiz import quiz_router, quiz_service, utcnow


class Clock:
    def __init__(self) -> None:
        self.at = utcnow()

    def now(self):
        return self.at


def _buttons(message: dict) -> list[str]:
    return [b["custom_id"] for row in message.get("components") or [] for b in row["components"]]


async def test_quiz_buttons_scored_once_and_closed_with_the_score(fake_discord: FakeDiscord, tmp_path):
    storage = sqlite_storage(tmp_path)
    posters, clock = Posters(), Clock()
    quizzes = quiz_service(storage, posters, now=clock.now)
    engine = make_service(storage, router=quiz_router(quizzes))
    channel = fake_discord.channel["id"]
    async with running_bot(fake_discord, engine, quizzes=quizzes) as client:
        posters.register("discord", DiscordPoster(client, client.budgets, interval_s=0.01))
        inter = await fake_discord.slash("quiz")
        await fake_discord.wait_until(lambda: fake_discord.channel_messages(channel))
        (quiz_msg,) = fake_discord.channel_messages(channel)
        buttons = _buttons(quiz_msg)
        assert 3 <= len(buttons) <= 4 and all(b.startswith("fuzi:quiz:") for b in buttons)
        await fake_discord.wait_until(lambda: (fake_discord.original(inter["token"]) or {}).get("content"))
        assert fake_discord.original(inter["token"])["content"] == say("QUIZ_POSTED", None, minutes=10)

        row = await quizzes.repo.get(int(buttons[0].split(":")[2]))
        right, wrong = buttons[row.correct], buttons[(row.correct + 1) % len(buttons)]

        async def press(custom_id: str, by=None) -> dict:
            click = await fake_discord.click(quiz_msg, custom_id, by=by)
            await fake_discord.wait_until(lambda: (fake_discord.original(click["token"]) or {}).get("content"))
            return fake_discord.original(click["token"])

        first = await press(right)
        assert first["content"].startswith(say("QUIZ_RIGHT", "zh", answer="")) and first["flags"] & 64
        assert row.explanation in first["content"]
        again = await press(wrong)  # pressed twice: the first answer stays
        assert again["content"] == say("QUIZ_ALREADY", None) and again["flags"] & 64
        other = await press(wrong, by=p.user(p.snowflake(), "zigong"))
        assert other["content"].startswith(say("QUIZ_WRONG", "zh", answer=""))
        assert len(fake_discord.channel_messages(channel)) == 1, "answers are ephemeral: nothing in the channel"

        answers = await quizzes.repo.tally(row.id)
        assert sorted(a.correct for a in answers) == [False, True]

        clock.at += timedelta(seconds=quizzes.open_s + 1)
        late = await press(right, by=p.user(p.snowflake(), "zixia"))  # time is up, the close not yet shown
        assert late["content"] == say("QUIZ_CLOSED", None)
        assert await quizzes.close_due() == 1
        assert await quizzes.close_due() == 0  # closed once
        await fake_discord.wait_until(lambda: not _buttons(quiz_msg))
        assert say("QUIZ_RESULT", None, right=1, answered=2, names="yan_hui") in quiz_msg["content"]
        assert len(await quizzes.repo.tally(row.id)) == 2

        dm = await fake_discord.slash("quiz", dm=True)
        await fake_discord.wait_until(lambda: (fake_discord.original(dm["token"]) or {}).get("content"))
        assert fake_discord.original(dm["token"])["content"] == say("QUIZ_GROUPS_ONLY", None)
