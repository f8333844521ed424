"""Scheduled posts through the real discord.py client against the fake Discord: a channel, a thread
(a thread is a channel), a channel that no longer exists and a 403, both "gone" (switched off)."""

from __future__ import annotations

import asyncio
from datetime import time

import pytest

from adapters.discord.poster import DiscordPoster
from core.schedule.passage import DailyPassage
from core.schedule.ports import ChatSchedule, Posters
from core.schedule.scheduler import Scheduler
from core.schedule.store import ClaimRepo, RotationRepo
from core.skills import SkillRegistry
from core.storage import open_database
from tests.fakes.discord_server import fake_discord  # noqa: F401
from tests.fakes.engine import ScriptedEngine
from tests.helpers_discord import running_bot
from tests.helpers_schedule import DictSettings, FakeClock, tiny_passages, utc

DUE = utc(2026, 12, 2, 0, 0)


@pytest.fixture
def sql(tmp_path):
    engine = open_database(f"sqlite:///{tmp_path / 'fuzi.sqlite3'}")
    yield engine
    engine.dispose()


def daily(channel_id: str) -> ChatSchedule:
    return ChatSchedule(f"discord:{channel_id}", daily_at=time(8, 0), zone="Asia/Shanghai", is_group=True)


async def test_channel_thread_and_gone_channels(sql, fake_discord):  # noqa: F811
    thread = fake_discord.add_thread()
    channel = fake_discord.channel["id"]
    async with running_bot(fake_discord, ScriptedEngine()) as client:
        posters = Posters()
        posters.register("discord", DiscordPoster(client, client.budgets, interval_s=0.05))
        forbidden = "1234567890123"  # the bot was removed: Discord answers 403
        missing = "999999999999999999"  # deleted channel: 404 Unknown Channel
        settings = DictSettings(daily(channel), daily(thread["id"]), daily(missing), daily(forbidden))
        fake_discord.fail_next("GET", rf"/channels/{forbidden}$", status=403, count=5)
        daily_maker = DailyPassage(tiny_passages(), RotationRepo(sql), SkillRegistry(), None)
        clock = FakeClock(DUE)
        s = Scheduler(settings, ClaimRepo(sql), daily_maker, posters, now=clock.now, monotonic=clock.monotonic)
        await asyncio.gather(*await s.scan())
        for where in (channel, thread["id"]):
            shown = fake_discord.channel_messages(where)
            assert len(shown) == 1 and shown[0]["content"].startswith("【每日一章】《")
        rows = {r.chat_key: r.status for r in await ClaimRepo(sql).all()}
        assert rows == {
            f"discord:{channel}": "sent",
            f"discord:{thread['id']}": "sent",
            f"discord:{missing}": "gone",
            f"discord:{forbidden}": "gone",
        }
        assert sorted(k for k, _ in settings.switched_off) == sorted([f"discord:{missing}", f"discord:{forbidden}"])
