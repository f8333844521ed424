"""Scheduled posts through the real PTB application against the fake Bot API: HTML, forum topics,
a 403 that switches the schedule off without retries, 429s waited out, flood limits kept."""

from __future__ import annotations

import asyncio
from datetime import time, timedelta

import pytest

from adapters.telegram.app import scheduled_poster
from adapters.telegram.settings import TelegramSettings
from core.schedule.passage import DailyPassage
from core.schedule.ports import ChatSchedule, Posters
from core.schedule.scheduler import Scheduler
from core.schedule.store import ClaimRepo, RotationRepo
from core.skills import SkillRegistry
from core.storage import open_database
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import TOKEN, FakeTelegram, FloodLimits
from tests.helpers_schedule import DictSettings, FakeClock, tiny_passages, utc
from tests.helpers_telegram import running_bot

DUE = utc(2026, 12, 2, 0, 0)


@pytest.fixture
def sql(tmp_path):
    engine = open_database(f"sqlite:///{tmp_path / 'fuzi.sqlite3'}")
    yield engine
    engine.dispose()


def settings_for(tg: FakeTelegram) -> TelegramSettings:
    return TelegramSettings(bot_token=TOKEN, api_base_url=tg.base_url, edit_interval_group_s=0.4)


async def scan_all(s: Scheduler) -> None:
    await asyncio.gather(*await s.scan())


def build(sql, tg, app, chats, clock):
    posters = Posters()
    posters.register("telegram", scheduled_poster(app, settings_for(tg)))
    daily = DailyPassage(tiny_passages(), RotationRepo(sql), SkillRegistry(), None)
    settings = DictSettings(*chats)
    return Scheduler(settings, ClaimRepo(sql), daily, posters, now=clock.now, monotonic=clock.monotonic), settings


def daily(key: str, **kw) -> ChatSchedule:
    return ChatSchedule(key, daily_at=time(8, 0), zone="Asia/Shanghai", is_group=True, **kw)


async def test_posts_to_the_chat_and_to_a_forum_topic(sql):
    async with FakeTelegram() as tg, running_bot(tg, ScriptedEngine()) as app:
        s, _ = build(sql, tg, app, [daily("telegram:-1001"), daily("telegram:-1002/77")], FakeClock(DUE))
        await scan_all(s)
        sends = {c.chat_id: c for c in tg.calls_to("sendMessage")}
        assert set(sends) == {-1001, -1002}
        assert sends[-1002].params["message_thread_id"] == "77"
        assert "message_thread_id" not in sends[-1001].params
        assert sends[-1001].params["parse_mode"] == "HTML"
        shown = tg.messages_in(-1001)[0].text
        assert shown.startswith("【每日一章】《") and "\n\n" in shown


async def test_403_switches_off_and_is_not_retried(sql):
    async with FakeTelegram() as tg, running_bot(tg, ScriptedEngine()) as app:
        tg.fail("sendMessage", status=403, times=10, when=lambda c: c.chat_id == -1001)
        clock = FakeClock(DUE)
        s, settings = build(sql, tg, app, [daily("telegram:-1001"), daily("telegram:-1003")], clock)
        await scan_all(s)
        assert len(tg.calls_to("sendMessage", -1001)) == 1  # one try, no retries
        assert len(tg.messages_in(-1003)) == 1
        assert [k for k, _ in settings.switched_off] == ["telegram:-1001"]
        rows = {r.chat_key: r.status for r in await ClaimRepo(sql).all()}
        assert rows == {"telegram:-1001": "gone", "telegram:-1003": "sent"}
        clock.advance(timedelta(days=1))
        await scan_all(s)
        assert len(tg.calls_to("sendMessage", -1001)) == 1  # switched off: never asked again


async def test_a_429_is_waited_out_and_the_post_arrives(sql):
    async with FakeTelegram() as tg, running_bot(tg, ScriptedEngine()) as app:
        tg.flood("sendMessage", chat_id=-1001, retry_after=1)
        s, _ = build(sql, tg, app, [daily("telegram:-1001")], FakeClock(DUE))
        await scan_all(s)
        assert [c.status for c in tg.calls_to("sendMessage", -1001)] == [429, 200]
        assert len(tg.messages_in(-1001)) == 1
        assert [r.status for r in await ClaimRepo(sql).all()] == ["sent"]


async def test_sixty_chats_due_at_once_under_flood_limits_get_no_429(sql):
    chats = [daily(f"telegram:{-(2000 + i)}") for i in range(30)] + [daily(f"telegram:{500 + i}") for i in range(30)]
    async with FakeTelegram(limits=FloodLimits()) as tg, running_bot(tg, ScriptedEngine()) as app:
        s, _ = build(sql, tg, app, chats, FakeClock(DUE))
        await scan_all(s)
        assert tg.retry_after_429s == 0
        assert sum(len(tg.messages_in(int(c.chat_id))) for c in chats) == 60


@pytest.mark.parametrize(
    ("error", "status"),
    [
        ("Chat not found", "gone"),  # the group deleted itself
        ("Message thread not found", "gone"),  # the forum topic was deleted
        ("Not enough rights to send text messages to the chat", "gone"),
        ("Message is too long", "failed"),
    ],
)
async def test_bad_requests_that_mean_the_chat_is_gone(error, status):
    from telegram.error import BadRequest

    from adapters.common.budget import BudgetRegistry
    from adapters.telegram.poster import TelegramPoster

    class RefusingBot:  # what PTB raises for Telegram's 400 answers with these descriptions
        calls = 0

        async def send_message(self, **kwargs):
            RefusingBot.calls += 1
            raise BadRequest(error)

    posted = await TelegramPoster(RefusingBot(), BudgetRegistry()).post("-1001/5", "【每日一章】…")  # type: ignore[arg-type]
    assert posted.status == status and RefusingBot.calls == 1  # never retried


async def test_a_post_ends_its_slot_and_its_429_pause_on_the_shared_gate():
    """With FUZI_REDIS_URL the per-chat budget is shared: a scheduled post must end each slot on the
    gate (else the gate stays busy until its lease runs out for every reply to that chat, in every
    process) and hand a 429's pause to the other processes."""
    from telegram.error import RetryAfter

    from adapters.common.budget import BudgetRegistry
    from adapters.telegram.poster import TelegramPoster

    class Gate:
        def __init__(self) -> None:
            self.claims: list[str] = []
            self.ended: list[tuple[bool, float]] = []

        async def claim(self, chat, token, *, urgent, interval):
            self.claims.append(chat)
            return 0.0

        async def done(self, chat, token, *, sent, interval, pause):
            self.ended.append((sent, pause))

    class BusyOnceBot:
        calls = 0

        async def send_message(self, **kwargs):
            BusyOnceBot.calls += 1
            if BusyOnceBot.calls == 1:
                raise RetryAfter(0.05)
            return type("Message", (), {"message_id": 7})()

    gate = Gate()
    poster = TelegramPoster(BusyOnceBot(), BudgetRegistry(gate=gate), private_interval_s=0.01)  # type: ignore[arg-type]
    posted = await poster.post("42", "【每日一章】…")
    assert posted.status == "sent" and BusyOnceBot.calls == 2
    assert gate.ended == [(True, 0.05), (True, 0.0)] and len(gate.claims) == 2  # every slot ended, the pause shared
