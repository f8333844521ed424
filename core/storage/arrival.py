"""Who wrote, where, and whether an answer is awaited from them there: one statement per message.

A message needs its account's person (`IdentityRepo`), its chat's settings (`ChatSettingsRepo`) and
whether a part awaits this person's answer in this chat (core/recite's open card). The three are
one SELECT, read fresh for every message, so no process keeps an old person after `/link` in
another, an old setting, or misses a card another process opened. On first sight the person,
account or chat is created (a few statements more, once). The chat's settings read here also
refresh `ChatSettingsRepo`'s cache for the reads that go through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import and_, literal, select
from sqlmodel import Session, col

from core.storage.base import _Repo
from core.storage.chat_settings import ChatSettings, ChatSettingsRepo, _create_chat, _seen
from core.storage.models import Account, Chat, ChatSettingsRow

AwaitedProbe = Callable[[str, Any], Any]
"""(chat key, the person id column) → an SQL condition, true when an answer is awaited from that
person in that chat (`AwaitedAnswers.awaited`, core/ports.py)."""


class Resolve(Protocol):
    """`IdentityRepo.resolve_in`: the person of an account, created on first sight, in a session."""

    def __call__(self, s: Session, platform: str, user_id: str, display_name: str, *, read: bool = True) -> int: ...


@dataclass(frozen=True)
class Arrival:
    """A message's person, its chat's settings, and whether an answer is awaited from them there."""

    person_id: int
    chat: ChatSettings
    awaited: bool = False


class ArrivalRepo(_Repo):
    """The one read every message starts with (module docstring).

    Args:
        engine / lock: as for every repository.
        resolve: finds or creates the person of an account in a session (`IdentityRepo`).
        settings: the chat settings repository whose cache each arrival refreshes.
    """

    def __init__(self, engine, lock=None, *, resolve: Resolve, settings: ChatSettingsRepo):
        super().__init__(engine, lock)
        self._resolve = resolve
        self._settings = settings

    async def arrive(
        self,
        platform: str,
        user_id: str,
        user_name: str,
        chat_key: str,
        is_group: bool,
        awaited: AwaitedProbe | None = None,
    ) -> Arrival:
        """The person (created on first sight, display name kept current), the chat's settings (its
        row created on first sight) and, with `awaited`, whether an answer is awaited."""

        def run(s: Session) -> Arrival:
            anchor = select(literal(1).label("one")).subquery()
            mine = and_(col(Account.platform) == platform, col(Account.platform_user_id) == user_id)
            waiting = awaited(chat_key, Account.person_id) if awaited is not None else literal(False)
            query = (
                select(Account, Chat, ChatSettingsRow, waiting.label("awaited"))
                .select_from(anchor)
                .outerjoin(Account, mine)
                .outerjoin(Chat, col(Chat.key) == chat_key)
                .outerjoin(ChatSettingsRow, col(ChatSettingsRow.chat_key) == chat_key)
            )
            account, chat, row, waits = s.execute(query).one()
            if account is None or (user_name and account.display_name != user_name):
                person_id = self._resolve(s, platform, user_id, user_name, read=account is not None)
            else:
                person_id = account.person_id
            if chat is None:
                chat = _create_chat(s, chat_key, platform, is_group)
            settings, _ = _seen(chat_key, chat, row)
            return Arrival(person_id, settings, bool(waits) and account is not None)

        arrival = await self._run(run)
        self._settings.remember(arrival.chat)
        return arrival
