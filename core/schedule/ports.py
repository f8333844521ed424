"""What the scheduler needs from the rest of Fuzi: the chats' settings and a way to post to a chat.

Settings (daily time, zone, script, skill, digest) are owned by the `/settings` command (core/chatsettings/);
`ScheduleSettings` is the scheduler's narrow view of them, implemented over that repository in
core/schedule/settings_view.py. Posting goes through a `Poster` per platform that the adapters
implement (adapters/telegram/poster.py, adapters/discord/poster.py): the core never imports a
platform library.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time
from typing import Literal, Protocol

from core.shown_in import ShownIn


@dataclass(frozen=True)
class ChatSchedule:
    """A chat with a daily passage or a digest, as the scheduler sees it.

    Attributes:
        chat_key: `platform:chat_id` (a Telegram forum topic is `telegram:<chat>/<topic>`).
        daily_at: local time of the daily passage, or None (off).
        zone: IANA zone name of `daily_at` (and of the digest time).
        script: "simplified" or "traditional".
        skill: the chat's skill name (None: the default skill).
        digest: the group digest is on.
        is_group: a group, supergroup, guild channel or thread.
        daily_since: when the daily time was last set; occurrences before it are not due.
        books: the book ids the daily passage is drawn from; None: every book.
        quiz_at / quiz_zone / quiz_since: the group's daily quiz (core/quiz), like the daily passage.
    """

    chat_key: str
    daily_at: time | None = None
    zone: str = "Asia/Shanghai"
    script: str = "simplified"
    skill: str | None = None
    digest: bool = False
    is_group: bool = False
    books: tuple[str, ...] | None = None
    daily_since: datetime | None = None
    quiz_at: time | None = None
    quiz_zone: str = "Asia/Shanghai"
    quiz_since: datetime | None = None

    @property
    def platform(self) -> str:
        return self.chat_key.split(":", 1)[0]

    @property
    def chat_id(self) -> str:
        return self.chat_key.split(":", 1)[1]


class ScheduleSettings(Protocol):
    """The scheduler's view of per-chat settings."""

    async def scheduled(self) -> list[ChatSchedule]:
        """Every chat with a daily passage, the digest on, or a daily quiz."""
        ...

    async def digest_on(self, chat_key: str) -> bool:
        """Whether `chat_key` has the digest on now (read for every group message: keep it cheap)."""
        ...

    async def daily_off(self, chat_key: str, reason: str) -> None:
        """Switch the chat's daily passage (digest, quiz) off: the bot was removed or blocked there."""
        ...


PostStatus = Literal["sent", "gone", "failed"]


@dataclass(frozen=True)
class Posted:
    """How a post ended: "sent"; "gone" (removed, blocked, chat deleted: do not retry, switch the
    schedule off); "failed" (still failing after the adapter's retries). `shown`: the platform
    messages it went out as, in order (a long post is split), so a reaction on any is feedback on it."""

    status: PostStatus
    detail: str = ""
    shown: tuple[ShownIn, ...] = ()


class Poster(Protocol):
    """Sends one scheduled message into one chat of its platform, paced like every other message."""

    async def post(self, chat_id: str, text: str) -> Posted: ...


class Posters:
    """The posters of the platforms this process runs (an adapter registers its poster once it is
    connected and removes it when it stops). The scheduler only claims posts it can send."""

    def __init__(self) -> None:
        self._by_platform: dict[str, Poster] = {}

    def register(self, platform: str, poster: Poster) -> None:
        self._by_platform[platform] = poster

    def unregister(self, platform: str) -> None:
        self._by_platform.pop(platform, None)

    def get(self, platform: str) -> Poster | None:
        return self._by_platform.get(platform)

    def platforms(self) -> set[str]:
        return set(self._by_platform)


class DailyQuiz(Protocol):
    """Posts a group's daily quiz (core/quiz implements it; the schedule only claims the day)."""

    async def post_daily(self, chat_key: str) -> tuple[str, str]:
        """(claim status: "sent", "skipped", "gone" or "failed"; a short detail)."""
        ...
