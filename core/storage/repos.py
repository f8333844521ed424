"""Small repositories over the tables. Every public method is async and runs its SQL in a worker thread.

Rows come back detached (safe to read after the session closed); callers never see a Session.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Awaitable, Callable, Collection
from typing import Any

import structlog
from sqlalchemy import Engine, delete, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, func, select

from core.storage.arrival import ArrivalRepo
from core.storage.base import T, _Repo, shares_one_connection
from core.storage.chat_settings import ChatSettingsRepo
from core.storage.chatlog import ChatLog, TokenRevocations
from core.storage.citations import CitationRepo
from core.storage.conflict import retry_on_conflict
from core.storage.feedback import FeedbackRepo
from core.storage.models import Account, Chat, Message, Person
from core.storage.operators import OperatorRepo
from core.storage.reading import ReadingRepo
from core.storage.replies import ReplyRepo, with_reply
from core.storage.rows import affected, row_id
from core.storage.status import MessageStatus

log = structlog.get_logger(__name__)

REFUSED_KEEP_CHARS = 1000
"""How much of a refused user message is stored (the rest is cut, its length noted)."""
KEPT_WHOLE: frozenset[MessageStatus] = frozenset({"ok", "context"})
"""User-message statuses stored in full: answered messages (already within the input limit) and
group chatter kept as context."""


def clip_refused(text: str, status: MessageStatus, keep: int = REFUSED_KEEP_CHARS) -> str:
    """The text to store for a user message with this status.

    A message that got no answer ("too_long", "injection", "busy", "rate_limited" …) is kept only
    for the record, so at most `keep` characters of it are stored, followed by a note with its
    original length: nobody can fill the database by sending refused messages.
    """
    if status in KEPT_WHOLE or len(text) <= keep:
        return text
    return f"{text[:keep]}…〔截断 truncated: {len(text)} chars〕"


NOTICED_MAX = 20_000
"""How many chats one process remembers as having had their "no LLM" notice (then it starts over)."""


class StorageBusyError(Exception):
    """The database stayed locked by another connection through every retry; nothing was written."""


def is_locked(exc: BaseException) -> bool:
    """True for SQLite's transient "database is locked" (another connection holds the write lock)."""
    return isinstance(exc, OperationalError) and "database is locked" in str(exc.orig).lower()


class LockRetry:
    """A bounded retry with jittered exponential backoff for writes that meet a locked database.

    Each attempt already waits up to the engine's busy timeout inside SQLite; between attempts the
    event loop is free. Only "database is locked" is retried; any other error is raised at once.

    Args:
        attempts: tries in all (1 = no retry).
        wait_initial_s / wait_max_s: the backoff between tries starts near the first and never
            exceeds the second.
    """

    def __init__(self, attempts: int = 3, *, wait_initial_s: float = 0.2, wait_max_s: float = 2.0):
        self.attempts = max(1, attempts)
        self.wait_initial_s = wait_initial_s
        self.wait_max_s = wait_max_s

    async def run(self, fn: Callable[[], Awaitable[T]], **log_ids: object) -> T:
        """Await `fn()` until it succeeds, raising `StorageBusyError` when the lock outlasts the bound.

        Try n waits a random time up to ``min(wait_max_s, wait_initial_s * 2 ** (n - 1))`` before the next.
        A plain loop, not tenacity's `AsyncRetrying`: every message's INSERT runs through here, and
        building tenacity's retry object per call cost ~0.15 ms of CPU (docs/performance.md).
        """
        for attempt in range(1, self.attempts + 1):
            try:
                return await fn()
            except OperationalError as exc:
                if not is_locked(exc):
                    raise
                if attempt == self.attempts:
                    log.error("storage_locked_gave_up", attempts=self.attempts, **log_ids)
                    raise StorageBusyError(f"database still locked after {self.attempts} attempts") from exc
                wait = random.uniform(0, min(self.wait_max_s, self.wait_initial_s * 2 ** (attempt - 1)))
                log.warning("storage_locked_retry", attempt=attempt, wait_s=round(wait, 3), **log_ids)
                await asyncio.sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")


class IdentityRepo(_Repo):
    """People and their platform accounts (the memory part links accounts with `set_person`)."""

    async def resolve(self, platform: str, user_id: str, display_name: str = "") -> int:
        """Return the person id for this account, creating person and account on first sight.

        A changed display name is updated. Two concurrent first sightings end with one account.
        """
        return await self._run(lambda s: self.resolve_in(s, platform, user_id, display_name))

    def resolve_in(self, s: Session, platform: str, user_id: str, display_name: str, *, read: bool = True) -> int:
        """`resolve` inside the caller's session; `read` False: the caller found no account (arrival.py)."""
        account = _account(s, platform, user_id) if read else None
        if account is None:
            try:
                person = Person()
                s.add(person)
                s.flush()
                s.add(
                    Account(
                        platform=platform,
                        platform_user_id=user_id,
                        person_id=row_id(person.id),
                        display_name=display_name,
                    )
                )
                s.commit()
                log.info("person_created", person=person.id, platform=platform)
                return row_id(person.id)
            except IntegrityError:  # another worker created it first
                s.rollback()
                account = _account(s, platform, user_id)
                if account is None:
                    raise
        if display_name and account.display_name != display_name:
            account.display_name = display_name
            s.add(account)
            s.commit()
        return account.person_id

    async def find(self, platform: str, user_id: str) -> Account | None:
        """The account row, or None when this platform user was never seen."""
        return await self._run(lambda s: _account(s, platform, user_id))

    async def accounts(self, person_id: int) -> list[Account]:
        """Every account that belongs to `person_id` (one per linked platform identity)."""
        query = select(Account).where(Account.person_id == person_id).order_by(col(Account.id))
        return await self._run(lambda s: list(s.exec(query)))

    async def set_person(self, platform: str, user_id: str, person_id: int) -> bool:
        """Move an account to another person (account linking). False when the account is unknown."""

        def move(s: Session) -> bool:
            account = _account(s, platform, user_id)
            if account is None:
                return False
            old = account.person_id
            account.person_id = person_id
            s.add(account)
            s.commit()
            log.info("account_linked", platform=platform, person_from=old, person_to=person_id)
            return True

        return await self._run(move)


def _account(s: Session, platform: str, user_id: str) -> Account | None:
    query = select(Account).where(Account.platform == platform, Account.platform_user_id == user_id)
    return s.exec(query).first()


class ChatRepo(_Repo):
    """Chats and their per-chat settings (skill, one-time notices).

    Args:
        engine / lock: as for every repository.
        forget: called with a chat's key once its skill changed here (drops cached settings).
    """

    def __init__(
        self, engine: Engine, lock: threading.Lock | None = None, *, forget: Callable[[str], None] = lambda key: None
    ):
        super().__init__(engine, lock)
        self._forget = forget
        self._noticed: set[str] = set()  # chats whose "no LLM" notice is known to be taken: no UPDATE per message

    async def set_skill(self, chat_key: str, skill: str, *, platform: str = "", is_group: bool = False) -> None:
        """Persist the chat's skill (the chat row is created when missing)."""

        def store(s: Session) -> None:
            chat = s.get(Chat, chat_key) or Chat(
                key=chat_key, platform=platform or chat_key.split(":")[0], is_group=is_group
            )
            chat.skill = skill
            s.add(chat)
            s.commit()

        await asyncio.to_thread(retry_on_conflict, lambda: self._in_session(store), chat=chat_key)
        self._forget(chat_key)

    def forget(self, chat_key: str) -> None:
        """The chat's row was deleted (a new one starts with its one-time notices not yet shown)."""
        self._noticed.discard(chat_key)

    async def claim_no_llm_notice(self, chat_key: str) -> bool:
        """True exactly once per chat: the caller should show the "no LLM configured" notice.

        Once this process knows the notice was taken (here or by another process) it asks no more.
        """
        if chat_key in self._noticed:
            return False

        def claim(s: Session) -> tuple[bool, bool]:
            stmt = (
                update(Chat)
                .where(col(Chat.key) == chat_key, col(Chat.no_llm_noticed).is_(False))
                .values(no_llm_noticed=True)
            )
            changed = affected(s.execute(stmt))
            s.commit()
            return changed == 1, changed == 1 or s.get(Chat, chat_key) is not None  # (mine, taken)

        mine, taken = await self._run(claim)
        if taken:
            if len(self._noticed) >= NOTICED_MAX:
                self._noticed.clear()
            self._noticed.add(chat_key)
        return mine


class MessageRepo(_Repo):
    """Everything said in every chat, in order. General enough for windows, summaries and exports.

    Args:
        engine / lock: as for every repository.
        lock_retry: how `add` rides out another connection's write lock (SQLite "database is
            locked"), so a new message is not lost to a short lock; default 3 tries.
    """

    def __init__(self, engine: Engine, lock: threading.Lock | None = None, *, lock_retry: LockRetry | None = None):
        super().__init__(engine, lock)
        self._lock_retry = lock_retry or LockRetry()

    async def add(
        self,
        chat_key: str,
        role: str,
        text: str,
        *,
        person_id: int | None = None,
        account: str = "",
        speaker: str = "",
        level: int | None = None,
        status: MessageStatus = "ok",
        trace_id: str = "",
        quoted: str | None = None,
        reply: bool = False,
    ) -> int:
        """Store one message and return its id; a refused user message is stored clipped (`clip_refused`).

        `quoted`: the screened quotes of a question as JSON (core/memory/quotes.py `dump_quotes`), in the same row.
        `reply`: the question is answered now: its reply's started row goes in the same INSERT (`replies.with_reply`).

        Raises:
            StorageBusyError: the database stayed locked through every retry of `lock_retry`.
        """

        if role == "user":
            text = clip_refused(text, status)

        values: dict[str, Any] = dict(
            chat_key=chat_key, role=role, text=text, person_id=person_id, account=account, speaker=speaker
        )
        values.update(level=level, status=status, trace_id=trace_id, quoted=quoted)

        def store(s: Session) -> int:
            row = Message(**values)  # a fresh row per attempt: a rolled-back one may keep stale state
            s.add(row)
            s.commit()
            return row_id(row.id)

        if reply:  # every answered message: one prepared Core INSERT of both rows, no ORM row
            insert_both = lambda: self._run_core(lambda c: with_reply(c, values))  # noqa: E731
            return await self._lock_retry.run(insert_both, chat=chat_key, role=role, trace=trace_id)
        return await self._lock_retry.run(lambda: self._run(store), chat=chat_key, role=role, trace=trace_id)

    async def recent(
        self,
        chat_key: str,
        limit: int,
        *,
        after_id: int | None = None,
        before_id: int | None = None,
        statuses: Collection[MessageStatus] | None = None,
    ) -> list[Message]:
        """The last `limit` messages of a chat, oldest first.

        Args:
            after_id: only messages with a larger id (e.g. not yet summarised).
            before_id: only messages with a smaller id (e.g. exclude the message being answered).
            statuses: only these statuses (e.g. {"ok"}); None keeps all.
        """
        query = select(Message).where(Message.chat_key == chat_key)
        if after_id is not None:
            query = query.where(col(Message.id) > after_id)
        if before_id is not None:
            query = query.where(col(Message.id) < before_id)
        if statuses is not None:
            query = query.where(col(Message.status).in_(list(statuses)))
        query = query.order_by(col(Message.id).desc()).limit(limit)
        rows = await self._run(lambda s: list(s.exec(query)))
        return rows[::-1]

    async def get(self, message_id: int) -> Message | None:
        """One message by id."""
        return await self._run(lambda s: s.get(Message, message_id))

    async def count(self, chat_key: str, *, role: str | None = None) -> int:
        """How many messages a chat holds (optionally of one role)."""
        query = select(func.count()).select_from(Message).where(Message.chat_key == chat_key)
        if role is not None:
            query = query.where(Message.role == role)
        return await self._run(lambda s: s.exec(query).one())

    async def by_person(self, person_id: int, limit: int, *, role: str = "user") -> list[Message]:
        """A person's last `limit` messages across all chats and linked platforms, oldest first."""
        query = (
            select(Message)
            .where(Message.person_id == person_id, Message.role == role)
            .order_by(col(Message.id).desc())
            .limit(limit)
        )
        rows = await self._run(lambda s: list(s.exec(query)))
        return rows[::-1]

    async def set_status(
        self, trace_id: str, role: str, status: MessageStatus, *, only_if: tuple[MessageStatus, ...] | None = None
    ) -> int:
        """Change the status of the `role` message(s) of one trace (e.g. a reply not delivered),
        only those whose status is one of `only_if` when given."""

        def change(s: Session) -> int:
            query = update(Message).where(col(Message.trace_id) == trace_id, col(Message.role) == role)
            if only_if is not None:
                query = query.where(col(Message.status).in_(list(only_if)))
            count = affected(s.execute(query.values(status=status)))
            s.commit()
            return count

        return await self._lock_retry.run(lambda: self._run(change), trace=trace_id, role=role)

    async def delete_chat(self, chat_key: str) -> int:
        """Delete every message of a chat (a user's explicit /forget); returns how many."""

        def remove(s: Session) -> int:
            count = affected(s.execute(delete(Message).where(col(Message.chat_key) == chat_key)))
            s.commit()
            return count

        return await self._run(remove)


class Storage:
    """The repositories over one engine, built once in bot/wiring and passed in."""

    def __init__(self, engine: Engine, *, lock_retry: LockRetry | None = None):
        self.engine = engine
        lock = threading.Lock() if shares_one_connection(engine) else None
        self.identities = IdentityRepo(engine, lock)
        self.settings = ChatSettingsRepo(engine, lock)
        self.arrivals = ArrivalRepo(engine, lock, resolve=self.identities.resolve_in, settings=self.settings)
        self.chats = ChatRepo(engine, lock, forget=self.settings.forget_cached)
        self.messages = MessageRepo(engine, lock, lock_retry=lock_retry)
        self.replies = ReplyRepo(engine, lock)
        self.chatlog = ChatLog(engine, lock, forget=self._forget_chat)
        self.revocations = TokenRevocations(engine, lock)
        self.feedback = FeedbackRepo(engine, lock)
        self.citations = CitationRepo(engine, lock)
        self.operators = OperatorRepo(engine, lock)
        self.reading = ReadingRepo(engine, lock)

    def _forget_chat(self, chat_key: str) -> None:
        """A chat was deleted (the web's DELETE): nothing this process cached about it holds."""
        self.settings.forget_cached(chat_key)
        self.chats.forget(chat_key)
