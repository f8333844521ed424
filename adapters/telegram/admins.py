"""The Telegram `AdminCheck`: `getChatMember` status `administrator` or `creator`, cached ≤ 60 s.

A cached answer is used for showing (whether to offer the settings keyboard) and for refusing; a
change re-asks Telegram when the cached answer was "yes" (`fresh=True`), so an admin demoted a
moment ago is refused at once, while a non-admin repeating a change costs no request.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from telegram import Bot
from telegram.constants import ChatMemberStatus

ADMIN_CACHE_S = 60.0
_ADMIN_STATUSES = frozenset({ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER})
_CACHE_MAX = 10_000


class TelegramAdmins:
    """`core.chatsettings.admins.AdminCheck` over the Bot API.

    Args:
        bot: the PTB bot.
        ttl_s: how long an answer is reused (at most 60 s).
        clock: monotonic clock (tests pass a fake one).
    """

    def __init__(self, bot: Bot, ttl_s: float = ADMIN_CACHE_S, clock: Callable[[], float] = time.monotonic):
        self._bot = bot
        self._ttl = min(ttl_s, ADMIN_CACHE_S)
        self._clock = clock
        self._cache: dict[tuple[str, str], tuple[float, bool]] = {}

    async def is_admin(self, chat_id: str, user_id: str, *, fresh: bool = False) -> bool:
        chat = chat_id.split("/", 1)[0]  # a forum topic "<chat>/<topic>" belongs to its group
        key, now = (chat, user_id), self._clock()
        hit = self._cache.get(key)
        if hit is not None and hit[0] > now and not (fresh and hit[1]):
            return hit[1]
        member = await self._bot.get_chat_member(int(chat), int(user_id))
        admin = member.status in _ADMIN_STATUSES
        if len(self._cache) >= _CACHE_MAX:
            self._cache.clear()
        self._cache[key] = (now + self._ttl, admin)
        return admin
