"""Recitation reminders (SQLite and PostgreSQL, fake clock): two replicas looking at the same minute
send one DM; a day without due cards sends none; one found later than the grace is skipped; a
reminder is claimed only by a process that runs its platform; a blocked DM turns the reminder off."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from core.recite.reminders import KIND, ReciteReminders, claim_key
from core.recite.store import ReciteStore
from core.schedule.ports import Posted, Posters
from core.schedule.store import ClaimRepo
from core.storage import open_database
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.helpers_recite import Clock

SET_AT = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)


class Poster:
    def __init__(self, status: str = "sent") -> None:
        self.sent: list[tuple[str, str]] = []
        self.status = status

    async def post(self, chat_id: str, text: str) -> Posted:
        await asyncio.sleep(0.01)  # both replicas are inside their scan at once
        self.sent.append((chat_id, text))
        return Posted(self.status)  # type: ignore[arg-type]


def replica(database_url: str, clock: Clock, poster: Poster, platform: str = "telegram") -> ReciteReminders:
    engine = open_database(database_url)  # each replica its own pool, as a process has
    posters = Posters()
    posters.register(platform, poster)
    return ReciteReminders(ReciteStore(engine), ClaimRepo(engine), posters, now=clock)


async def test_two_replicas_send_one_dm_and_none_on_a_day_without_due_cards(database_url):  # noqa: F811
    clock = Clock(SET_AT)
    poster = Poster()
    a, b = replica(database_url, clock, poster), replica(database_url, clock, poster)
    store = ReciteStore(open_database(database_url))
    await store.add(1, ["lunyu:1.1", "lunyu:2.11"], SET_AT)
    await store.set_reminder(1, "telegram:501", "08:00", "Asia/Shanghai", SET_AT)
    await store.add(2, ["lunyu:4.8"], SET_AT + timedelta(days=5))  # due only later
    await store.set_reminder(2, "telegram:502", "08:00", "Asia/Shanghai", SET_AT)
    clock.at = datetime(2026, 3, 2, 0, 0, 1, tzinfo=UTC)  # 08:00:01 in Shanghai, the next day
    sent = await asyncio.gather(a.scan(), b.scan(), a.scan(), b.scan())
    assert sum(sent) == 1 and len(poster.sent) == 1
    chat, text = poster.sent[0]
    assert chat == "501" and "2 张卡到期" in text and "/recite" in text
    claim = await ClaimRepo(open_database(database_url)).get(claim_key(1), KIND, clock.at.date())
    assert claim is not None and claim.status == "sent"
    nothing = await ClaimRepo(open_database(database_url)).get(claim_key(2), KIND, clock.at.date())
    assert nothing is not None and nothing.status == "skipped"  # no card due: no DM
    clock.advance(minutes=30)  # later the same day: nothing more
    assert await asyncio.gather(replica(database_url, clock, poster).scan(), a.scan()) == [0, 0]
    await store.open("telegram:501", 1, 1, "学而时习之", "学而", clock.at + timedelta(minutes=30), clock.at)
    clock.advance(days=1)  # the next day: one more, and the card opened yesterday is gone
    assert sum(await asyncio.gather(a.scan(), b.scan())) == 1 and len(poster.sent) == 2
    clock.advance(hours=1)
    await a.scan()
    assert await store.take_open("telegram:501", 1) is None


async def test_late_reminders_are_skipped_other_platforms_left_and_a_blocked_dm_switches_off(database_url):  # noqa: F811
    clock = Clock(SET_AT)
    store = ReciteStore(open_database(database_url))
    for person, chat in ((1, "telegram:1"), (2, "discord:2"), (3, "telegram:3")):
        await store.add(person, ["lunyu:1.1"], SET_AT)
        await store.set_reminder(person, chat, "08:00" if person != 1 else "05:00", "Asia/Shanghai", SET_AT)
    clock.at = datetime(2026, 3, 2, 0, 0, 1, tzinfo=UTC)  # 08:00 Shanghai: person 1's 05:00 is 3 h late
    blocked = Poster(status="gone")
    assert await replica(database_url, clock, blocked).scan() == 0
    assert blocked.sent == [("3", blocked.sent[0][1])]  # only the Telegram person due now; discord:2 left
    assert await store.reminder(3) is None  # blocked: reminder switched off
    late = await ClaimRepo(open_database(database_url)).get(claim_key(1), KIND, clock.at.date())
    assert late is not None and late.status == "skipped"
    discord = Poster()
    assert await replica(database_url, clock, discord, platform="discord").scan() == 1
    assert discord.sent[0][0] == "2"


async def test_a_reminder_set_after_todays_time_starts_tomorrow(database_url):  # noqa: F811
    clock = Clock(datetime(2026, 3, 2, 1, 0, tzinfo=UTC))  # 09:00 Shanghai
    store = ReciteStore(open_database(database_url))
    await store.add(1, ["lunyu:1.1"], clock.at)
    await store.set_reminder(1, "telegram:1", "08:00", "Asia/Shanghai", clock.at)
    poster = Poster()
    assert await replica(database_url, clock, poster).scan() == 0
    clock.at = datetime(2026, 3, 3, 0, 0, 30, tzinfo=UTC)
    assert await replica(database_url, clock, poster).scan() == 1
