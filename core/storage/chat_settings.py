"""Per-chat settings: the typed `ChatSettings`, and the repository every replica shares through SQL.

The skill lives in `chat.skill` (the /skill command wrote it before settings existed); script, daily
passage, digest and model live in `chat_settings`. Every change is written together with a row in
`chat_setting_change` saying who changed what, from what, to what, and when.

Reads are cached per process for `SETTINGS_CACHE_S` seconds (most chats never change them): a
change made by another replica is seen within that time, a change made by this process at once. A
message reads its chat's settings afresh, with its person, in its first statement
(core/storage/arrival.py), and refreshes this cache with them; `ensure` (the chat's row created on
first sight) is for the callers that need the chat without a message.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from datetime import time as clock_time
from typing import Literal, Protocol, cast

import structlog
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from core.language import Script
from core.storage.base import _Repo
from core.storage.conflict import begin_write, retry_on_conflict
from core.storage.models import Chat, ChatSettingChange, ChatSettingsRow, utcnow

log = structlog.get_logger(__name__)

SettingField = Literal["skill", "script", "daily", "digest", "quiz", "books", "model"]
SETTING_FIELDS: tuple[SettingField, ...] = ("skill", "script", "daily", "digest", "quiz", "books", "model")

DEFAULT_ZONE = "Asia/Shanghai"
"""The zone of a daily passage set without one (`/settings daily 08:00`), when the chat has none yet."""
SETTINGS_CACHE_S = 5.0
"""How long one process reuses a chat's settings before reading them again (other replicas' changes)."""
_CACHE_MAX = 20_000
MODELS_ACCOUNT = "operator:FUZI_LLM_MODELS"
"""Who a model reset is logged as (a model FUZI_LLM_MODELS no longer lists)."""


@dataclass(frozen=True)
class Daily:
    """A daily passage at `at` local time in the IANA zone `zone`."""

    at: clock_time
    zone: str = DEFAULT_ZONE

    def __str__(self) -> str:
        return f"{self.at:%H:%M} {self.zone}"


@dataclass(frozen=True)
class ChatSettings:
    """One chat's settings; a chat nobody configured has these defaults.

    Attributes:
        chat_key: `platform:chat_id`.
        is_group: the chat is a group (admins own its settings) — False for a chat never seen.
        skill: the chat's skill name; None: the registry's default.
        script: "simplified" / "traditional"; None ("auto"): answer in the script the person writes.
        daily: time and zone of the daily passage; None: off.
        digest: the opt-in daily digest of a group's conversation.
        books: the book ids the daily passage is drawn from; None: every book.
        quiz: time and zone of the group's daily quiz (core/quiz); None: off.
        model: the model the chat picked (`/settings model`); None: the default. Whether it is still
            allowed is the engine's question (core/llm/choice.py `ModelChoice.pick`).
        updated_at: when script/daily/digest last changed (None: never).
    """

    chat_key: str
    is_group: bool = False
    skill: str | None = None
    script: Script | None = None
    daily: Daily | None = None
    digest: bool = False
    books: tuple[str, ...] | None = None
    model: str | None = None
    updated_at: datetime | None = None
    quiz: Daily | None = None

    def shown(self, name: SettingField) -> str:
        """The value of one setting as the command and the change log write it."""
        if name == "skill":
            return self.skill or "default"
        if name == "script":
            return self.script or "auto"
        if name == "daily":
            return str(self.daily) if self.daily else "off"
        if name == "quiz":
            return str(self.quiz) if self.quiz else "off"
        if name == "books":
            return ",".join(self.books) if self.books else "all"
        if name == "model":
            return self.model or "default"
        return "on" if self.digest else "off"


SettingValue = str | Daily | bool | tuple[str, ...] | None
"""skill: a name; script: a Script or None (auto); daily, quiz: a Daily or None (off); digest: a bool;
books: book ids or None (every book); model: a name or None (the default)."""


@dataclass(frozen=True)
class SettingChange:
    """A change that was stored: the chat's settings after it, the field, old and new shown values, who."""

    settings: ChatSettings
    field: SettingField
    old: str
    new: str
    account: str

    @property
    def changed(self) -> bool:
        return self.old != self.new


class ChatFields(Protocol):
    """What settings read of a chat's row (a `Chat`, or a row of a Core read with these columns)."""

    is_group: bool
    skill: str | None


class SettingsFields(Protocol):
    """What settings read of a chat's settings row (a `ChatSettingsRow`, or a Core row with these columns)."""

    script: str | None
    daily_time: str | None
    daily_zone: str | None
    digest: bool
    books: str | None
    model: str | None
    updated_at: datetime
    quiz_time: str | None
    quiz_zone: str | None


def _settings(chat: ChatFields | None, row: SettingsFields | None, chat_key: str) -> ChatSettings:
    daily = None
    if row is not None and row.daily_time:
        hh, mm = row.daily_time.split(":")
        daily = Daily(clock_time(int(hh), int(mm)), row.daily_zone or DEFAULT_ZONE)
    quiz = None
    if row is not None and row.quiz_time:
        hh, mm = row.quiz_time.split(":")
        quiz = Daily(clock_time(int(hh), int(mm)), row.quiz_zone or DEFAULT_ZONE)
    script = row.script if row is not None and row.script in ("simplified", "traditional") else None
    return ChatSettings(
        chat_key=chat_key,
        is_group=bool(chat and chat.is_group),
        skill=chat.skill if chat else None,
        script=cast(Script | None, script),
        daily=daily,
        digest=bool(row and row.digest),
        books=tuple(row.books.split(",")) if row is not None and row.books else None,
        model=row.model if row is not None else None,
        updated_at=row.updated_at if row else None,
        quiz=quiz,
    )


class ChatSettingsRepo(_Repo):
    """Read (cached) and change per-chat settings; each change is logged in `chat_setting_change`.

    Args:
        engine / lock: as for every repository.
        cache_s: how long a read is reused in this process (0: never).
        clock: monotonic clock for the cache (tests pass a fake one).
    """

    def __init__(
        self, engine, lock=None, *, cache_s: float = SETTINGS_CACHE_S, clock: Callable[[], float] = time.monotonic
    ):
        super().__init__(engine, lock)
        self._cache: dict[str, tuple[float, ChatSettings, bool]] = {}  # (until, settings, chat row exists)
        self._cache_s = cache_s
        self._clock = clock

    async def get(self, chat_key: str) -> ChatSettings:
        """The chat's settings, from this process's cache when read less than `cache_s` ago."""
        hit = self._cached(chat_key)
        if hit is not None:
            return hit[0]
        return self._keep(chat_key, *await self._run(lambda s: _seen(chat_key, *_read(s, chat_key))))

    async def ensure(self, chat_key: str, platform: str, is_group: bool) -> ChatSettings:
        """The settings for a message in this chat, its row created on first sight (as `get`, cached:
        a row this process saw less than `cache_s` ago is taken to be there)."""
        hit = self._cached(chat_key)
        if hit is not None and hit[1]:
            return hit[0]
        found = await self._run(lambda s: _seen(chat_key, *_ensured(s, chat_key, platform, is_group)))
        return self._keep(chat_key, *found)

    async def fresh(self, chat_key: str) -> ChatSettings:
        """The chat's settings read from the database now."""
        return (await self._run(lambda s: _seen(chat_key, *_read(s, chat_key))))[0]

    def _cached(self, chat_key: str) -> tuple[ChatSettings, bool] | None:
        hit = self._cache.get(chat_key)
        return (hit[1], hit[2]) if hit is not None and hit[0] > self._clock() else None

    def _keep(self, chat_key: str, settings: ChatSettings, exists: bool) -> ChatSettings:
        if len(self._cache) >= _CACHE_MAX:
            self._cache.clear()
        self._cache[chat_key] = (self._clock() + self._cache_s, settings, exists)
        return settings

    def remember(self, settings: ChatSettings) -> None:
        """Cache settings just read elsewhere (a message's arrival), its chat's row known to exist."""
        self._keep(settings.chat_key, settings, True)

    def forget_cached(self, chat_key: str | None = None) -> None:
        """Drop one chat's cached settings (None: all), so the next read goes to the database."""
        if chat_key is None:
            self._cache.clear()
        else:
            self._cache.pop(chat_key, None)

    async def change(
        self,
        chat_key: str,
        field: SettingField,
        value: SettingValue,
        *,
        account: str,
        platform: str = "",
        is_group: bool = False,
    ) -> SettingChange:
        """Set one setting and log who did it, in one transaction (the row locked while it is read).

        An unchanged value is not logged (the returned change has `changed` False).
        """

        def run() -> SettingChange:
            with self._lock, Session(self._engine, expire_on_commit=False) as s:
                begin_write(s)
                chat = s.get(Chat, chat_key, with_for_update=True) or Chat(
                    key=chat_key, platform=platform or chat_key.split(":")[0], is_group=is_group
                )
                row = s.get(ChatSettingsRow, chat_key, with_for_update=True) or ChatSettingsRow(chat_key=chat_key)
                old = _settings(chat, row, chat_key).shown(field)
                _apply(chat, row, field, value)
                after = _settings(chat, row, chat_key)
                new = after.shown(field)
                if new != old:
                    s.add(chat)
                    s.add(row)
                    s.add(
                        ChatSettingChange(chat_key=chat_key, field=field, old_value=old, new_value=new, account=account)
                    )
                    s.commit()
                return SettingChange(after, field, old, new, account)

        change = await asyncio.to_thread(retry_on_conflict, run, chat=chat_key)
        self.forget_cached(chat_key)
        if change.changed:
            log.info("chat_setting_changed", chat=chat_key, field=field, account=account)
        return change

    async def history(self, chat_key: str, limit: int = 20) -> list[ChatSettingChange]:
        """The chat's last `limit` changes, newest first."""
        query = (
            select(ChatSettingChange)
            .where(ChatSettingChange.chat_key == chat_key)
            .order_by(col(ChatSettingChange.id).desc())
            .limit(limit)
        )
        return await self._run(lambda s: list(s.exec(query)))

    async def reset_models(self, allowed: Collection[str]) -> int:
        """Send every chat whose model is not in `allowed` back to the default (FUZI_LLM_MODELS lost
        it), each change logged in `chat_setting_change` by "operator:FUZI_LLM_MODELS"; one log line."""

        def run() -> dict[str, str]:
            with self._lock, Session(self._engine) as s:
                stale = col(ChatSettingsRow.model).is_not(None) & col(ChatSettingsRow.model).not_in(list(allowed))
                rows = list(s.exec(select(ChatSettingsRow).where(stale).with_for_update()))
                gone = {row.chat_key: row.model or "" for row in rows}
                for row in rows:
                    s.add(
                        ChatSettingChange(
                            chat_key=row.chat_key,
                            field="model",
                            old_value=row.model,
                            new_value="default",
                            account=MODELS_ACCOUNT,
                        )
                    )
                    row.model, row.updated_at = None, utcnow()
                    s.add(row)
                s.commit()
                return gone

        gone = await asyncio.to_thread(run)
        self.forget_cached()
        if gone:
            log.warning("chat_models_reset", chats=len(gone), models=sorted(set(gone.values())), to="default")
        return len(gone)

    async def with_daily(self) -> list[ChatSettings]:
        """Every chat with a daily passage set (for the scheduler), uncached."""
        return await self._select(col(ChatSettingsRow.daily_time).is_not(None))

    async def with_digest(self) -> list[ChatSettings]:
        """Every chat with the digest on, uncached."""
        return await self._select(col(ChatSettingsRow.digest).is_(True))

    async def with_quiz(self) -> list[ChatSettings]:
        """Every chat with a daily quiz set (for the scheduler), uncached."""
        return await self._select(col(ChatSettingsRow.quiz_time).is_not(None))

    async def _select(self, where) -> list[ChatSettings]:
        query = select(ChatSettingsRow, Chat).join(Chat, col(Chat.key) == col(ChatSettingsRow.chat_key), isouter=True)
        query = query.where(where).order_by(col(ChatSettingsRow.chat_key))
        rows = await self._run(lambda s: list(s.exec(query)))
        return [_settings(chat, row, row.chat_key) for row, chat in rows]


def _read(s: Session, chat_key: str) -> tuple[Chat | None, ChatSettingsRow | None]:
    """The chat's row and its settings row: one statement when the chat exists."""
    query = select(Chat, ChatSettingsRow).join(
        ChatSettingsRow, col(ChatSettingsRow.chat_key) == col(Chat.key), isouter=True
    )
    found = s.exec(query.where(col(Chat.key) == chat_key)).first()
    if found is not None:
        return found[0], found[1]
    return None, s.get(ChatSettingsRow, chat_key)


def _seen(chat_key: str, chat: Chat | None, row: ChatSettingsRow | None) -> tuple[ChatSettings, bool]:
    """The settings of the rows read (taken while their session is open) and whether the chat's row exists."""
    return _settings(chat, row, chat_key), chat is not None


def _ensured(s: Session, chat_key: str, platform: str, is_group: bool) -> tuple[Chat, ChatSettingsRow | None]:
    chat, row = _read(s, chat_key)
    return (chat or _create_chat(s, chat_key, platform, is_group)), row


def _create_chat(s: Session, chat_key: str, platform: str, is_group: bool) -> Chat:
    """The chat's new row (committed); two first sightings at once end with one."""
    try:
        chat = Chat(key=chat_key, platform=platform, is_group=is_group)
        s.add(chat)
        s.commit()
        return chat
    except IntegrityError:
        s.rollback()
        existing = s.get(Chat, chat_key)
        if existing is None:  # the conflict was not this chat's row
            raise
        return existing


def _apply(chat: Chat, row: ChatSettingsRow, field: SettingField, value: SettingValue) -> None:
    if field == "skill":
        chat.skill = value if isinstance(value, str) else None
        return
    row.updated_at = utcnow()
    if field == "script":
        row.script = value if value in ("simplified", "traditional") else None
    elif field == "daily":
        daily = value if isinstance(value, Daily) else None
        row.daily_time = f"{daily.at:%H:%M}" if daily else None
        row.daily_zone = daily.zone if daily else None
    elif field == "digest":
        row.digest = bool(value)
    elif field == "books":
        row.books = ",".join(value) if isinstance(value, tuple) and value else None
    elif field == "quiz":
        quiz = value if isinstance(value, Daily) else None
        row.quiz_time = f"{quiz.at:%H:%M}" if quiz else None
        row.quiz_zone = quiz.zone if quiz else None
    elif field == "model":
        row.model = value if isinstance(value, str) else None
    else:
        raise ValueError(f"unknown setting {field!r}")
