"""One person, several accounts: one-time link codes, joining and separating accounts.

``/link`` issues a 6-digit code (10 minutes, single use; only a salted SHA-256 of it is stored).
``/link <code>`` from another account moves every account of the redeeming person to the code's
person and hands over their facts, profile and messages (the exchanges still waiting for the
profile's extraction go into the joined person's next batch), so facts, profile, history and limits
(all keyed by person id) are shared. ``/unlink`` moves the calling account to a fresh person, taking the facts remembered
from that account with it. Wrong codes are counted per person: after ``max_failures`` within
``failure_window_s`` further tries are refused until the window passes.

Note: a 6-digit code has a million values; the per-person limit stops guessing from one account,
not an attacker who controls many accounts. The code's short life is the remaining defence.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import structlog
from sqlalchemy import Engine, update
from sqlmodel import Session, col, func, select

from core.memory.models import Fact, LinkAttempt, LinkCode, Profile, utcnow
from core.memory.profile import merge_profile
from core.storage.models import Account, Message, Person
from core.storage.reading import merge_reading
from core.storage.rows import row_id

log = structlog.get_logger(__name__)

CODE_DIGITS = 6


def _hash(salt: str, code: str) -> str:
    return hashlib.sha256(f"{salt}:{code}".encode()).hexdigest()


@dataclass(frozen=True)
class LinkResult:
    """Outcome of ``redeem`` or ``unlink``.

    status: "linked", "same_person", "invalid" (wrong, expired or used code), "rate_limited",
    "unlinked", "not_linked". person_id: the person the calling account belongs to afterwards.
    """

    status: Literal["linked", "same_person", "invalid", "rate_limited", "unlinked", "not_linked"]
    person_id: int
    retry_after_s: float | None = None
    tries_left: int | None = None


class AccountLinker:
    """Issues and redeems link codes and separates accounts again.

    Args:
        engine: the shared SQLAlchemy engine (storage and memory tables created).
        ttl_s: how long a code stays valid.
        max_failures: wrong codes a person may enter within ``failure_window_s``.
        failure_window_s: the sliding window for counting wrong codes.
        clock: aware UTC "now" (tests inject a controllable one).
    """

    def __init__(
        self,
        engine: Engine,
        *,
        ttl_s: float = 600,
        max_failures: int = 5,
        failure_window_s: float = 600,
        clock: Callable[[], datetime] = utcnow,
    ):
        self._engine = engine
        self.ttl = timedelta(seconds=ttl_s)
        self.max_failures = max_failures
        self.failure_window = timedelta(seconds=failure_window_s)
        self._clock = clock
        self._merge_hooks: list[Callable[[Session, int, int], None]] = []

    def add_merge_hook(self, hook: Callable[[Session, int, int], None]) -> None:
        """`hook(session, source, target)` moves another part's per-person rows (the recitation deck)
        inside the same transaction as the accounts, facts and profile."""
        self._merge_hooks.append(hook)

    # ---------------------------------------------------------------- codes
    async def issue(self, person_id: int, account: str) -> str:
        """A new code for ``person_id``; the person's earlier unused codes stop working."""
        code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
        salt = secrets.token_hex(8)

        def run() -> None:
            with Session(self._engine) as s:
                unused = (col(LinkCode.person_id) == person_id) & (col(LinkCode.used) == False)  # noqa: E712
                s.execute(update(LinkCode).where(unused).values(used=True))
                s.add(
                    LinkCode(
                        person_id=person_id,
                        account=account,
                        salt=salt,
                        code_hash=_hash(salt, code),
                        expires_at=self._clock() + self.ttl,
                    )
                )
                s.commit()

        await asyncio.to_thread(run)
        log.info("link_code_issued", person=person_id)
        return code

    async def redeem(self, person_id: int, platform: str, user_id: str, code: str) -> LinkResult:
        """Join the calling account's person into the code's person (see module docstring)."""
        return await asyncio.to_thread(self._redeem, person_id, platform, user_id, code.strip())

    def _redeem(self, person_id: int, platform: str, user_id: str, code: str) -> LinkResult:
        now = self._clock()
        with Session(self._engine) as s:
            failures = self._recent_failures(s, person_id, now)
            if len(failures) >= self.max_failures:
                wait = (min(failures) + self.failure_window - now).total_seconds()
                log.warning("link_rate_limited", person=person_id)
                return LinkResult("rate_limited", person_id, retry_after_s=max(1.0, wait))
            match = self._match(s, code, now) if code.isdigit() and len(code) == CODE_DIGITS else None
            if match is None:
                s.add(LinkAttempt(person_id=person_id, at=now))
                s.commit()
                log.warning("link_code_wrong", person=person_id, failures=len(failures) + 1)
                return LinkResult("invalid", person_id, tries_left=self.max_failures - len(failures) - 1)
            if match.person_id == person_id:
                return LinkResult("same_person", person_id)
            target = match.person_id
            match.used = True
            s.add(match)
            self._merge_person(s, source=person_id, target=target)
            s.commit()
        log.info("accounts_linked", person_from=person_id, person_to=target, platform=platform)
        return LinkResult("linked", target)

    def _recent_failures(self, s: Session, person_id: int, now: datetime) -> list[datetime]:
        since = now - self.failure_window
        query = select(LinkAttempt.at).where(LinkAttempt.person_id == person_id, LinkAttempt.at > since)
        return list(s.exec(query))

    def _match(self, s: Session, code: str, now: datetime) -> LinkCode | None:
        live = s.exec(select(LinkCode).where(LinkCode.used == False, LinkCode.expires_at > now))  # noqa: E712
        for row in live:
            if hmac.compare_digest(row.code_hash, _hash(row.salt, code)):
                return row
        return None

    def _merge_person(self, s: Session, *, source: int, target: int) -> None:
        """Move accounts, facts, profile and reading (bookmarks, position) of ``source`` to ``target``
        (one transaction)."""
        s.execute(update(Account).where(col(Account.person_id) == source).values(person_id=target))
        s.execute(update(Fact).where(col(Fact.person_id) == source).values(person_id=target))
        s.execute(update(LinkCode).where(col(LinkCode.person_id) == source).values(used=True))
        old, mine = s.get(Profile, source), s.get(Profile, target)
        mark = _joined_mark(s, source, old, target, mine)
        s.execute(update(Message).where(col(Message.person_id) == source).values(person_id=target))
        if old is not None or mine is not None:
            mine = mine or Profile(person_id=target)
            merged = merge_profile(json.loads(old.data) if old else {}, json.loads(mine.data))
            mine.data, mine.updated_at, mine.extracted_upto = json.dumps(merged, ensure_ascii=False), utcnow(), mark
            s.add(mine)
            if old is not None:
                s.delete(old)
        merge_reading(s, source=source, target=target)
        for hook in self._merge_hooks:
            hook(s, source, target)

    # ---------------------------------------------------------------- unlink
    async def unlink(self, person_id: int, platform: str, user_id: str) -> LinkResult:
        """Give the calling account a person of its own again, with the facts it remembered."""
        return await asyncio.to_thread(self._unlink, person_id, platform, user_id)

    def _unlink(self, person_id: int, platform: str, user_id: str) -> LinkResult:
        account_key = f"{platform}:{user_id}"
        with Session(self._engine) as s:
            count = s.exec(select(func.count()).select_from(Account).where(Account.person_id == person_id)).one()
            if count <= 1:
                return LinkResult("not_linked", person_id)
            person = Person()
            s.add(person)
            s.flush()
            s.execute(
                update(Account)
                .where(col(Account.platform) == platform, col(Account.platform_user_id) == user_id)
                .values(person_id=person.id)
            )
            s.execute(
                update(Fact)
                .where(col(Fact.person_id) == person_id, col(Fact.account) == account_key)
                .values(person_id=person.id)
            )
            s.commit()
            new_id = row_id(person.id)
        log.info("accounts_unlinked", person_from=person_id, person_to=new_id, platform=platform)
        return LinkResult("unlinked", new_id)

    async def accounts(self, person_id: int) -> list[str]:
        """``platform:user_id`` of every account of ``person_id``."""

        def run() -> list[str]:
            with Session(self._engine) as s:
                rows = s.exec(select(Account).where(Account.person_id == person_id).order_by(col(Account.id)))
                return [f"{a.platform}:{a.platform_user_id}" for a in rows]

        return await asyncio.to_thread(run)


def _joined_mark(s: Session, source: int, old: Profile | None, target: int, mine: Profile | None) -> int:
    """The profile mark of two people joined into one: before the first question either had waiting
    for the extraction (so no waiting exchange is skipped, a few extracted ones may be sent again),
    or the later of their two marks when nothing waits."""
    marks = {source: old.extracted_upto if old else 0, target: mine.extracted_upto if mine else 0}
    waiting = [(col(Message.person_id) == person) & (col(Message.id) > upto) for person, upto in marks.items()]
    asked = (col(Message.role) == "user", col(Message.status) == "ok")
    first = s.exec(select(func.min(Message.id)).where(*asked, waiting[0] | waiting[1])).one()
    return first - 1 if first is not None else max(marks.values())
