"""Who wrote, where, and whether an answer is awaited from them there: one statement per message.

A message needs its account's person (`IdentityRepo`), its chat's settings (`ChatSettingsRepo`) and
whether a part awaits this person's answer in this chat (core/recite's open card). The three are
one SELECT, read fresh for every message, so no process keeps an old person after `/link` in
another, an old setting, or misses a card another process opened. On first sight the person,
account or chat is created (a few statements more, once). The chat's settings read here also
refresh `ChatSettingsRepo`'s cache for the reads that go through it. The SELECT is a Core statement
built once (per awaiting part), its values bound at execution: no ORM rows are made for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Row, Select, String, and_, bindparam, literal, select
from sqlmodel import Session

from core.storage.base import _Repo
from core.storage.chat_settings import ChatSettings, ChatSettingsRepo, ChatSettingsRow, _create_chat, _settings
from core.storage.models import Account, Chat

AwaitedProbe = Callable[[Any, Any], Any]
"""(chat key, the person id column) → an SQL condition, true when an answer is awaited from that
person in that chat (`AwaitedAnswers.awaited`, core/ports.py). The chat key it is given may be a
bound parameter (the statement is built once per probe)."""


class Resolve(Protocol):
    """`IdentityRepo.resolve_in`: the person of an account, created on first sight, in a session."""

    def __call__(self, s: Session, platform: str, user_id: str, display_name: str, *, read: bool = True) -> int: ...


@dataclass(frozen=True)
class Arrival:
    """A message's person, its chat's settings, and whether an answer is awaited from them there."""

    person_id: int
    chat: ChatSettings
    awaited: bool = False


_A = Account.__table__  # type: ignore[attr-defined]
_C = Chat.__table__  # type: ignore[attr-defined]
_S = ChatSettingsRow.__table__  # type: ignore[attr-defined]
_SETTINGS = tuple(c.key for c in _S.columns if c.key != "chat_key")  # every setting the table holds


def _query(awaited: AwaitedProbe | None) -> Select:
    """The arrival's one SELECT, its values bound at execution (`b_platform`, `b_user`, `b_chat`): the
    account's person and name, the chat's row and its settings (columns named as `_settings` reads
    them), and whether an answer is awaited; one row, whatever exists."""
    chat_key = bindparam("b_chat", type_=String)
    mine = and_(_A.c.platform == bindparam("b_platform"), _A.c.platform_user_id == bindparam("b_user"))
    waiting = awaited(chat_key, _A.c.person_id) if awaited is not None else literal(False)
    return (
        select(
            _A.c.person_id.label("a_person"),
            _A.c.display_name.label("a_name"),
            _C.c.key.label("c_key"),
            _C.c.is_group,
            _C.c.skill,
            _S.c.chat_key.label("s_key"),
            *(_S.c[name] for name in _SETTINGS),
            waiting.label("awaited"),
        )
        .select_from(select(literal(1).label("one")).subquery())
        .outerjoin(_A, mine)
        .outerjoin(_C, _C.c.key == chat_key)
        .outerjoin(_S, _S.c.chat_key == chat_key)
    )


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
        self._queries: dict[Hashable, Select] = {}  # per probe (a bound method: equal for the same object)

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
        query = self._queries.get(awaited)
        if query is None:
            query = self._queries[awaited] = _query(awaited)
        params = {"b_platform": platform, "b_user": user_id, "b_chat": chat_key}

        def first_sight(s: Session, r: Row, renamed: bool) -> tuple[int, Chat | None]:
            """The person of a new or renamed account, and the chat's new row when it had none."""
            person_id = r.a_person
            if renamed:
                person_id = self._resolve(s, platform, user_id, user_name, read=r.a_person is not None)
            return person_id, _create_chat(s, chat_key, platform, is_group) if r.c_key is None else None

        def run() -> Arrival:
            r = self._in_transaction(lambda c: c.execute(query, params).one())
            renamed = r.a_person is None or bool(user_name and r.a_name != user_name)
            person_id, created = r.a_person, None
            if renamed or r.c_key is None:  # first sight (a few statements more, once)
                person_id, created = self._in_session(lambda s: first_sight(s, r, renamed))
            settings = _settings(created if created is not None else r, r if r.s_key is not None else None, chat_key)
            return Arrival(person_id, settings, bool(r.awaited) and r.a_person is not None)

        arrival = await asyncio.to_thread(run)
        self._settings.remember(arrival.chat)
        return arrival
