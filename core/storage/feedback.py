"""Reactions as feedback: each person's verdict on a reply, found by the platform message showing it.

The adapters report where a reply is shown (`Engine.record_shown`): its own message in
`message.shown_in`, the other messages (the later parts of a split answer, a Discord interaction's
response) in `reply_part`; a reaction on any of them finds the reply (`FeedbackRepo.reply_at`, the
one place that maps a platform message to a reply). A scheduled post (daily passage, digest) is
noted the same way by the scheduler, so a reaction on it is feedback on that post (its question is
empty).

👍 ❤️ 🔥 count as "up", 👎 💩 as "down"; any other reaction is no verdict (and removes an earlier one
by the same person, as taking a reaction back does). One verdict per reply and person: the latest
wins. A reaction on a message that is not one of Fuzi's answers (someone else's message, a notice, a
message Fuzi never recorded or whose reply is gone) changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import structlog
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from core.shown_in import ShownIn
from core.storage import citations as footnotes
from core.storage.base import _Repo
from core.storage.models import Message, ReplyFeedback, ReplyPart

log = structlog.get_logger(__name__)

Verdict = Literal["up", "down"]
FeedbackOutcome = Literal["up", "down", "cleared", "ignored"]
UP = frozenset({"👍", "❤", "❤️", "🔥", "up"})
DOWN = frozenset({"👎", "💩", "down"})
ANSWERED = ("ok", "undelivered", "blocked", "cancelled")  # reply statuses a verdict can be about


def verdict_of(reaction: str) -> Verdict | None:
    """ "up", "down", or None for a reaction that is no verdict."""
    if reaction in UP:
        return "up"
    if reaction in DOWN:
        return "down"
    return None


@dataclass(frozen=True)
class FeedbackEntry:
    """One verdict with the exchange it is about, for `fuzi feedback`."""

    created_at: datetime
    platform: str
    account: str
    verdict: str
    emoji: str
    trace_id: str
    chat_key: str
    question: str
    answer: str
    level: int | None
    passages: tuple[str, ...] = ()


class FeedbackRepo(_Repo):
    """The verdicts on replies, found by where they are shown (see the module docstring)."""

    async def rate(
        self, platform: str, account: str, reaction: str, *, where: ShownIn | None = None, trace_id: str | None = None
    ) -> FeedbackOutcome:
        """`account`'s reaction on an answer, found by the message it is shown in (`where`) or by its
        trace — the web page's person only in their own chats (`web:<user>/…`), so nobody rates
        another person's answers. Not an answer of Fuzi's: "ignored", nothing stored."""
        if trace_id is not None:
            own = f"{account}/" if platform == "web" else None
            found = trace_id if await self.is_answer(trace_id, own) else None
        else:
            found = await self.reply_at(where) if where else None
        if found is None:
            log.info("feedback_ignored", platform=platform, where=str(where) if where else None)
            return "ignored"
        outcome = await self.record(found, platform, account, reaction)
        log.info("feedback", platform=platform, outcome=outcome, reply_trace=found)
        return outcome

    async def reply_at(self, where: ShownIn) -> str | None:
        """The trace of the answer shown in platform message `where` (any part of it), or None."""
        key = where.stored()

        def find(s: Session) -> str | None:
            query = select(Message.trace_id).where(
                col(Message.shown_in) == key, Message.role == "assistant", col(Message.status).in_(ANSWERED)
            )
            first = s.exec(query.order_by(col(Message.id).desc())).first()
            if first is not None:
                return first
            part = s.exec(select(ReplyPart.trace_id).where(ReplyPart.shown_in == key)).first()
            return part if part is not None and _is_answer(s, part) else None

        return await self._run(find)

    async def is_answer(self, trace_id: str, chat_prefix: str | None = None) -> bool:
        """True when `trace_id` is a stored answer (in a chat whose key starts with `chat_prefix`)."""
        return await self._run(lambda s: _is_answer(s, trace_id, chat_prefix))

    async def record(self, trace_id: str, platform: str, account: str, reaction: str) -> FeedbackOutcome:
        """Store `account`'s verdict on the reply (a reaction that is no verdict clears theirs)."""
        verdict = verdict_of(reaction)

        def store(s: Session) -> FeedbackOutcome:
            row = s.exec(
                select(ReplyFeedback).where(ReplyFeedback.trace_id == trace_id, ReplyFeedback.account == account)
            ).first()
            if verdict is None:
                if row is None:
                    return "ignored"
                s.delete(row)
                s.commit()
                return "cleared"
            row = row or ReplyFeedback(trace_id=trace_id, platform=platform, account=account, verdict=verdict)
            row.verdict, row.emoji = verdict, reaction[:32]
            s.add(row)
            s.commit()
            return verdict

        try:
            return await self._run(store)
        except IntegrityError:  # the same person's two reactions raced: the other one is stored
            return "ignored"

    async def since(self, since: datetime, limit: int = 500) -> list[FeedbackEntry]:
        """Verdicts given since `since`, newest first, each with its question and answer."""

        def load(s: Session) -> list[FeedbackEntry]:
            rows = s.exec(
                select(ReplyFeedback)
                .where(col(ReplyFeedback.created_at) >= since)
                .order_by(col(ReplyFeedback.created_at).desc())
                .limit(limit)
            ).all()
            return [_entry(s, row) for row in rows]

        return await self._run(load)


def _is_answer(s: Session, trace_id: str, chat_prefix: str | None = None) -> bool:
    query = select(Message.id).where(
        Message.trace_id == trace_id, Message.role == "assistant", col(Message.status).in_(ANSWERED)
    )
    if chat_prefix is not None:
        query = query.where(col(Message.chat_key).startswith(chat_prefix, autoescape=True))
    return s.exec(query).first() is not None


def _entry(s: Session, row: ReplyFeedback) -> FeedbackEntry:
    messages = s.exec(select(Message).where(Message.trace_id == row.trace_id).order_by(col(Message.id))).all()
    question = next((m for m in messages if m.role == "user"), None)
    answer = next((m for m in messages if m.role == "assistant"), None)
    return FeedbackEntry(
        created_at=row.created_at,
        platform=row.platform,
        account=row.account,
        verdict=row.verdict,
        emoji=row.emoji,
        trace_id=row.trace_id,
        chat_key=answer.chat_key if answer else "",
        question=question.text if question else "",
        answer=answer.text if answer else "",
        level=answer.level if answer else None,
        passages=footnotes.refs(s, row.trace_id),
    )
