"""A reaction on any of Fuzi's answers in Discord is feedback on it, whatever path produced the answer:
discord.py ↔ the fake Discord (gateway, REST, CDN), the real engine over SQLite ↔ the fake OpenAI
server (and the fake transcription endpoint), the real scheduler for a daily passage. Photos and voice
are read as slowly as real engines read them (tests/media_images.py `SlowReader`, `FakeTranscriber.take`).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, time, timedelta

import pytest_asyncio

from adapters.discord.poster import DiscordPoster
from core.llm.client import OpenAIChatClient
from core.media.intake import MediaIntake
from core.media.ocr import PageReader
from core.media.stt import OpenAITranscriber
from core.schedule.passage import DailyPassage
from core.schedule.ports import ChatSchedule, Posters
from core.schedule.scheduler import Scheduler
from core.schedule.store import ClaimRepo, RotationRepo
from core.shown_in import ShownIn
from core.skills import SkillRegistry
from core.storage.repos import Storage
from tests.fakes.discord_media import attachment, message_with, react
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.openai_server import FakeOpenAI, fake_llm  # noqa: F401
from tests.fakes.stt_server import FakeTranscriber
from tests.helpers_discord import running_bot
from tests.helpers_engine import make_service, sqlite_storage
from tests.helpers_reactions import ANSWER, PAGE, fuzi, stt, verdicts  # noqa: F401
from tests.helpers_reactions import rateable as shown_answer
from tests.helpers_schedule import DictSettings, FakeClock, tiny_passages, utc
from tests.media_images import blank_photo

# three paragraphs of about 1,400 characters: three Discord messages of at most 2,000
LONG = "\n\n".join(f"第{n}段：" + "学而时习之，不亦说乎？" * 125 for n in range(1, 4))


async def rateable(storage: Storage, message: dict) -> str:
    """The trace of the answer the Discord `message` shows, once its reply ended."""
    return await shown_answer(storage, ShownIn("discord", message["channel_id"], int(message["id"])))


async def answer_in(fake: FakeDiscord, channel: str, text: str) -> dict:
    await fake.wait_until(
        lambda: any(text in (m.get("content") or "") for m in fake.channel_messages(channel)), timeout=20
    )
    (message,) = [m for m in fake.channel_messages(channel) if text in (m.get("content") or "")]
    return message


async def test_the_answer_to_a_dm_image(fake_discord, fuzi, fake_llm):
    fake, (storage, service) = fake_discord, fuzi
    fake_llm.reply_text(ANSWER)
    async with running_bot(fake, service):
        await message_with(fake, "", [attachment(fake, blank_photo(), "page.jpg", "image/jpeg")], dm=True)
        answer = await answer_in(fake, fake.dm_channel_id, ANSWER)
        await rateable(storage, answer)
        await react(fake, answer, "👍")
        assert [v[:2] for v in await verdicts(storage, 1)] == [(f"discord:{fake.human['id']}", "up")]


async def test_the_answer_to_a_voice_message(fake_discord, fuzi, fake_llm, stt):
    fake, (storage, service) = fake_discord, fuzi
    stt.say("巧言令色鲜矣仁")
    stt.take(0.8)
    fake_llm.reply_text(ANSWER)
    async with running_bot(fake, service):
        voice = attachment(fake, b"OggS" + bytes(500), "voice-message.ogg", "audio/ogg", duration_secs=3.2)
        await message_with(fake, "", [voice], dm=True, voice=True)
        answer = await answer_in(fake, fake.dm_channel_id, ANSWER)
        await rateable(storage, answer)
        await react(fake, answer, "👎")
        assert [v[:2] for v in await verdicts(storage, 1)] == [(f"discord:{fake.human['id']}", "down")]


async def test_every_part_of_a_split_answer_in_a_channel(fake_discord, fuzi, fake_llm):
    fake, (storage, service) = fake_discord, fuzi
    channel = fake.channel["id"]
    fake_llm.reply_text(LONG)
    async with running_bot(fake, service):
        await fake.user_message("何为学？", mention_bot=True)
        await answer_in(fake, channel, "第3段")
        parts = fake.channel_messages(channel)
        assert len(parts) == 3
        traces = {await rateable(storage, part) for part in parts}
        for n, (part, emoji) in enumerate(zip(parts, ("👍", "👎", "🔥"), strict=True)):
            await react(fake, part, emoji, user_id=str(900 + n))
        found = await verdicts(storage, 3)
    assert sorted(v[:2] for v in found) == [("discord:900", "up"), ("discord:901", "down"), ("discord:902", "up")]
    assert {v[2] for v in found} == traces and len(traces) == 1


async def test_every_part_of_a_slash_command_answer(fake_discord, fuzi, fake_llm):
    fake, (storage, service) = fake_discord, fuzi
    fake_llm.reply_text(LONG)
    async with running_bot(fake, service):
        inter = await fake.slash("ask", {"question": "何为学？"})
        await fake.wait_until(lambda: any("第3段" in m["content"] for m in fake.followups(inter["token"])), timeout=20)
        original, *followups = [fake.original(inter["token"]), *fake.followups(inter["token"])]
        assert original is not None and len(followups) == 2
        traces = {await rateable(storage, message) for message in (original, *followups)}
        await react(fake, original, "👍", user_id="900")
        await react(fake, followups[-1], "❤️", user_id="901")
        found = await verdicts(storage, 2)
    assert sorted(v[:2] for v in found) == [("discord:900", "up"), ("discord:901", "up")]
    assert {v[2] for v in found} == traces and len(traces) == 1


async def test_a_daily_passage_and_its_reactions(fake_discord, fuzi):
    fake, (storage, service) = fake_discord, fuzi
    channel = fake.channel["id"]
    async with running_bot(fake, service) as client:
        posters = Posters()
        posters.register("discord", DiscordPoster(client, client.budgets, interval_s=0.05))
        scheduler = Scheduler(
            DictSettings(ChatSchedule(f"discord:{channel}", daily_at=time(8, 0), zone="Asia/Shanghai", is_group=True)),
            ClaimRepo(storage.engine),
            DailyPassage(tiny_passages(), RotationRepo(storage.engine), SkillRegistry(), None),
            posters,
            messages=storage.messages,
            replies=storage.replies,
            now=FakeClock(utc(2026, 12, 2, 0, 0)).now,
        )
        await asyncio.gather(*await scheduler.scan())
        (post,) = fake.channel_messages(channel)
        await rateable(storage, post)
        await react(fake, post, "👍")
        assert [v[:2] for v in await verdicts(storage, 1)] == [(f"discord:{fake.human['id']}", "up")]
    (entry,) = await storage.feedback.since(datetime.now(UTC) - timedelta(hours=1))
    assert entry.question == "" and entry.answer == post["content"]
