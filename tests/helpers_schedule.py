"""Shared parts of the scheduling tests: a fake wall clock, settings held in a dict, a recording poster."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

import pytest
from structlog.testing import capture_logs

from core.retrieval.documents import Passage
from core.schedule.ports import ChatSchedule, Posted
from core.shown_in import ShownIn


@pytest.fixture
def log_events():
    """The structlog events logged during the test, whatever logging configuration ran before."""
    with capture_logs() as logs:
        yield logs


def count(logs: list[dict], event: str) -> int:
    return sum(1 for e in logs if e.get("event") == event)


class FakeClock:
    """Wall clock (aware UTC) and monotonic clock that move only when told."""

    def __init__(self, start: datetime) -> None:
        self.at = start
        self.mono = 1000.0

    def now(self) -> datetime:
        return self.at

    def monotonic(self) -> float:
        return self.mono

    def advance(self, delta: timedelta) -> None:
        self.at += delta
        self.mono += max(0.0, delta.total_seconds())

    def jump(self, delta: timedelta) -> None:
        """The wall clock jumps (NTP step, VM resume); monotonic time barely moves."""
        self.at += delta
        self.mono += 1.0


class DictSettings:
    """`ScheduleSettings` over a dict (the real one reads the /settings table; tests of the scheduling
    logic need only these three calls)."""

    def __init__(self, *chats: ChatSchedule) -> None:
        self.chats = {c.chat_key: c for c in chats}
        self.switched_off: list[tuple[str, str]] = []

    async def scheduled(self) -> list[ChatSchedule]:
        return [c for c in self.chats.values() if c.daily_at is not None or c.digest]

    async def digest_on(self, chat_key: str) -> bool:
        chat = self.chats.get(chat_key)
        return bool(chat and chat.digest)

    async def daily_off(self, chat_key: str, reason: str) -> None:
        self.switched_off.append((chat_key, reason))
        chat = self.chats[chat_key]
        self.chats[chat_key] = replace(chat, daily_at=None, digest=False)


@dataclass
class RecordingPoster:
    """A `Poster` that keeps what it was asked to send; `answers` maps chat ids to a forced outcome."""

    sent: list[tuple[str, str]] = field(default_factory=list)
    answers: dict[str, Posted] = field(default_factory=dict)
    delay_s: float = 0.0

    async def post(self, chat_id: str, text: str) -> Posted:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        answer = self.answers.get(chat_id, Posted("sent", "", (ShownIn("test", chat_id, len(self.sent) + 1),)))
        if answer.status == "sent":
            self.sent.append((chat_id, text))
        return answer


def tiny_passages() -> list[Passage]:
    """Three passages from both books: enough to see a rotation end and start again."""
    return [
        Passage("lunyu:1.1", "《论语·学而》第1章", "lunyu", "学而", "子曰：学而时习之，不亦说乎？"),
        Passage("lunyu:2.1", "《论语·为政》第1章", "lunyu", "为政", "子曰：为政以德，譬如北辰。"),
        Passage("shijing:1", "《诗经·国风·周南·关雎》", "shijing", "关雎", "关关雎鸠，在河之洲。"),
    ]


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
