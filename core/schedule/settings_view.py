"""The scheduler's view of per-chat settings (`ScheduleSettings`) over the /settings repository.

Which chats have a daily passage, the digest or a daily quiz (`ChatSettingsRepo.with_daily/with_digest/
with_quiz`, uncached),
since when the daily time is set (the newest `daily` row of the change log, so a time set after
today's occurrence starts tomorrow), whether a group's digest is on (the repository's cached read,
`SETTINGS_CACHE_S`), and switching a chat's schedule off after a 403 (a change by `system:schedule`,
logged like any other).
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, func, select

from core.schedule.ports import ChatSchedule
from core.storage.base import _Repo
from core.storage.chat_settings import DEFAULT_ZONE, ChatSettings, ChatSettingsRepo
from core.storage.chatlog import aware
from core.storage.models import ChatSettingChange

SYSTEM_ACCOUNT = "system:schedule"
"""Who the change log names when the scheduler switches a chat's schedule off (bot removed/blocked)."""


class SettingsView(_Repo):
    """`ScheduleSettings` over `ChatSettingsRepo` (see the module docstring)."""

    def __init__(self, repo: ChatSettingsRepo, engine, lock=None) -> None:
        super().__init__(engine, lock)
        self._repo = repo

    async def scheduled(self) -> list[ChatSchedule]:
        chats: dict[str, ChatSettings] = {c.chat_key: c for c in await self._repo.with_daily()}
        for c in [*await self._repo.with_digest(), *await self._repo.with_quiz()]:
            chats.setdefault(c.chat_key, c)
        since = await self._set_at("daily", sorted(k for k, c in chats.items() if c.daily is not None))
        quiz_since = await self._set_at("quiz", sorted(k for k, c in chats.items() if c.quiz is not None))
        return [_schedule(c, since.get(key), quiz_since.get(key)) for key, c in sorted(chats.items())]

    async def digest_on(self, chat_key: str) -> bool:
        return (await self._repo.get(chat_key)).digest

    async def daily_off(self, chat_key: str, reason: str) -> None:
        await self._repo.change(chat_key, "daily", None, account=SYSTEM_ACCOUNT)
        await self._repo.change(chat_key, "digest", False, account=SYSTEM_ACCOUNT)
        await self._repo.change(chat_key, "quiz", None, account=SYSTEM_ACCOUNT)

    async def _set_at(self, field: str, keys: list[str]) -> dict[str, datetime]:
        if not keys:
            return {}
        query = (
            select(ChatSettingChange.chat_key, func.max(ChatSettingChange.created_at))
            .where(col(ChatSettingChange.field) == field, col(ChatSettingChange.chat_key).in_(keys))
            .group_by(col(ChatSettingChange.chat_key))
        )

        def run(s: Session) -> dict[str, datetime]:
            return {key: aware(at) for key, at in s.exec(query) if at is not None}

        return await self._run(run)


def _schedule(c: ChatSettings, since: datetime | None, quiz_since: datetime | None = None) -> ChatSchedule:
    return ChatSchedule(
        chat_key=c.chat_key,
        daily_at=c.daily.at if c.daily else None,
        zone=c.daily.zone if c.daily else DEFAULT_ZONE,
        script=c.script or "simplified",
        skill=c.skill,
        digest=c.digest,
        is_group=c.is_group,
        daily_since=since,
        books=c.books,
        quiz_at=c.quiz.at if c.quiz else None,
        quiz_zone=c.quiz.zone if c.quiz else DEFAULT_ZONE,
        quiz_since=quiz_since,
    )
