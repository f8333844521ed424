"""The Telegram admin check's cache: ≤ 60 s, a fresh look for changes when the cache says yes."""

from __future__ import annotations

from types import SimpleNamespace

from adapters.telegram.admins import TelegramAdmins
from tests.fakes.clock import FakeClock


class Bot:
    def __init__(self) -> None:
        self.status: dict[tuple[int, int], str] = {}
        self.calls: list[tuple[int, int]] = []

    async def get_chat_member(self, chat_id: int, user_id: int):
        self.calls.append((chat_id, user_id))
        return SimpleNamespace(status=self.status.get((chat_id, user_id), "member"))


async def test_cache_fresh_checks_topics_and_ttl_cap():
    bot, clock = Bot(), FakeClock(0.0)
    admins = TelegramAdmins(bot, ttl_s=600, clock=clock)  # asked for 10 minutes: capped at 60 s
    bot.status[(-100, 1)] = "administrator"
    bot.status[(-100, 2)] = "creator"
    assert await admins.is_admin("-100/7", "1")  # a forum topic belongs to its group
    assert await admins.is_admin("-100", "1") and len(bot.calls) == 1  # cached
    assert await admins.is_admin("-100", "2")
    assert not await admins.is_admin("-100", "3") and not await admins.is_admin("-100", "3", fresh=True)
    assert bot.calls.count((-100, 3)) == 1  # a cached "no" stands even for a change
    bot.status[(-100, 1)] = "member"  # demoted
    assert await admins.is_admin("-100", "1")  # showing: the cache may be up to 60 s old
    assert not await admins.is_admin("-100", "1", fresh=True)  # changing: asked again
    bot.status[(-100, 3)] = "administrator"  # promoted
    clock.now = 61.0
    assert await admins.is_admin("-100", "3")
