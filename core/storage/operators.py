"""The operator console's figures and lists, every one read from the database (docs/operators.md).

* `stats(days)`: addressed messages, people, chats by platform, answers by level, refusals, latency
  percentiles, tokens per model and verdicts over the last `days` days, with a per-day series for
  the charts. Answers, latency and tokens come from `reply_stats` (one row per answer, written with
  its text); messages, people, chats and refusals from the stored questions; verdicts from
  `reply_feedback`. The counts agree with the Prometheus counters where both exist
  (`fuzi_replies_total{outcome="answered"}` by level, `fuzi_guard_refusals_total`,
  `fuzi_reply_feedback_total`), for the messages that were stored.
* `feedback`, `unanswered`, `chats`: pages, newest first (chats by key), each with the cursor of
  the next page (None: the last one), so a CSV export of any size is read page by page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from core.storage import citations as footnotes
from core.storage.base import _Repo
from core.storage.models import Chat, ChatSettingsRow, Message, ReplyFeedback, ReplyStats

LEVELS = {0: "agent", 1: "degraded", 2: "texts_only"}
"""An answer's fallback level as the console names it."""
GUARD_STATUSES = ("injection", "too_long", "empty", "refused")
"""Stored statuses of questions the guards turned away (`refusals.guard`)."""
LIMIT_STATUSES = ("rate_limited",)
"""Stored statuses of questions a limit turned away (`refusals.limits`)."""
ASKED = col(Message.role) == "user"
NOT_CHATTER = col(Message.status) != "context"  # group chatter not addressed to Fuzi is no message to it


@dataclass(frozen=True)
class Page:
    """One page of a list and the cursor of the next (None: this was the last)."""

    items: list[dict[str, Any]]
    next: int | str | None


def since_days(days: int, now: datetime | None = None) -> datetime:
    """The start of the window: midnight UTC `days - 1` days before today (today counts as one)."""
    today = (now or datetime.now(UTC)).astimezone(UTC).date()
    return datetime.combine(today - timedelta(days=days - 1), datetime.min.time(), tzinfo=UTC)


def percentile(values: list[int], q: float) -> int | None:
    """The nearest-rank `q` percentile (0 < q ≤ 100) of `values`; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n·q/100)
    return ordered[int(rank) - 1]


class OperatorRepo(_Repo):
    """Reads for the operator console (see the module docstring); nothing here writes."""

    async def stats(self, days: int, now: datetime | None = None) -> dict[str, Any]:
        """Every figure of the last `days` days (today included, UTC)."""
        start = since_days(days, now)
        return await self._run(lambda s: _stats(s, start, days))

    async def feedback(self, days: int, before: int | None = None, limit: int = 50) -> Page:
        """Verdicts, newest first: question, answer, cited passages, verdict, platform, time."""
        start = since_days(days)
        return await self._run(lambda s: _feedback(s, start, before, limit))

    async def unanswered(self, days: int, before: int | None = None, limit: int = 50) -> Page:
        """Questions answered from the texts alone (level 2) or citing no passage, newest first."""
        start = since_days(days)
        return await self._run(lambda s: _unanswered(s, start, before, limit))

    async def chats(self, after: str | None = None, limit: int = 50) -> Page:
        """Every chat Fuzi knows with its settings, by key."""
        return await self._run(lambda s: _chats(s, after, limit))


def _stats(s: Session, start: datetime, days: int) -> dict[str, Any]:
    asked = (ASKED, NOT_CHATTER, col(Message.created_at) >= start)
    messages = s.exec(select(func.count()).select_from(Message).where(*asked)).one()
    people = s.exec(select(func.count(func.distinct(Message.person_id))).where(*asked)).one()
    chats = s.exec(
        select(Chat.platform, func.count(func.distinct(Message.chat_key)))
        .join(Chat, col(Chat.key) == col(Message.chat_key))
        .where(*asked)
        .group_by(col(Chat.platform))
    ).all()
    refused = dict(
        s.exec(
            select(Message.status, func.count())
            .where(*asked, col(Message.status).in_(GUARD_STATUSES + LIMIT_STATUSES))
            .group_by(col(Message.status))
        ).all()
    )
    answered = col(ReplyStats.created_at) >= start
    levels = dict(s.exec(select(ReplyStats.level, func.count()).where(answered).group_by(col(ReplyStats.level))).all())
    tokens = s.exec(
        select(ReplyStats.model, func.sum(ReplyStats.prompt_tokens), func.sum(ReplyStats.completion_tokens))
        .where(answered, col(ReplyStats.model).is_not(None))
        .group_by(col(ReplyStats.model))
    ).all()
    timings = s.exec(select(ReplyStats.first_visible_ms, ReplyStats.final_ms).where(answered)).all()
    verdicts = dict(
        s.exec(
            select(ReplyFeedback.verdict, func.count())
            .where(col(ReplyFeedback.created_at) >= start)
            .group_by(col(ReplyFeedback.verdict))
        ).all()
    )
    first = [t[0] if t[0] is not None else t[1] for t in timings]  # nothing streamed: first seen is the final
    final = [t[1] for t in timings]
    return {
        "days": days,
        "since": start.isoformat(),
        "messages": int(messages),
        "people": int(people),
        "chats": {platform: int(n) for platform, n in chats},
        "levels": {name: int(levels.get(level, 0)) for level, name in LEVELS.items()},
        "refusals": {
            "guard": sum(int(refused.get(x, 0)) for x in GUARD_STATUSES),
            "limits": sum(int(refused.get(x, 0)) for x in LIMIT_STATUSES),
            "by_reason": {str(k): int(v) for k, v in refused.items()},
        },
        "latency_ms": {
            "first_visible": {"p50": percentile(first, 50), "p95": percentile(first, 95)},
            "final": {"p50": percentile(final, 50), "p95": percentile(final, 95)},
        },
        "tokens": {str(m): {"prompt": int(p or 0), "completion": int(c or 0)} for m, p, c in tokens},
        "feedback": {"up": int(verdicts.get("up", 0)), "down": int(verdicts.get("down", 0))},
        "per_day": _per_day(s, start, days),
    }


def _per_day(s: Session, start: datetime, days: int) -> list[dict[str, Any]]:
    """One entry per day of the window (zeros included): messages, answers by level, verdicts."""
    series: dict[str, dict[str, Any]] = {}
    for n in range(days):
        day = (start.date() + timedelta(days=n)).isoformat()
        series[day] = {"day": day, "messages": 0, **dict.fromkeys(LEVELS.values(), 0), "up": 0, "down": 0}

    def bump(rows, name) -> None:
        for day, key, count in rows:
            entry = series.get(_day(day))
            if entry is not None:
                entry[name(key)] += int(count)

    on = _utc_day(s, Message.created_at)
    bump(
        s.exec(
            select(on, Message.role, func.count())
            .where(ASKED, NOT_CHATTER, col(Message.created_at) >= start)
            .group_by(on, col(Message.role))
        ).all(),
        lambda _: "messages",
    )
    on_reply = _utc_day(s, ReplyStats.created_at)
    bump(
        s.exec(
            select(on_reply, ReplyStats.level, func.count())
            .where(col(ReplyStats.created_at) >= start)
            .group_by(on_reply, col(ReplyStats.level))
        ).all(),
        lambda level: LEVELS.get(level, "texts_only"),
    )
    on_verdict = _utc_day(s, ReplyFeedback.created_at)
    bump(
        s.exec(
            select(on_verdict, ReplyFeedback.verdict, func.count())
            .where(col(ReplyFeedback.created_at) >= start)
            .group_by(on_verdict, col(ReplyFeedback.verdict))
        ).all(),
        lambda verdict: "up" if verdict == "up" else "down",
    )
    return list(series.values())


def _utc_day(s: Session, column: Any) -> Any:
    """The UTC calendar day of a stored moment, in SQL (PostgreSQL's date() follows the session's zone)."""
    if s.get_bind().dialect.name == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)  # SQLite keeps the moment as UTC text


def _day(value: object) -> str:
    """A SQL date (PostgreSQL) or its text (SQLite) as YYYY-MM-DD."""
    return value.isoformat() if isinstance(value, date) else str(value)[:10]


def _exchange(s: Session, traces: list[str]) -> dict[str, dict[str, Message]]:
    """The question and answer of each trace."""
    found: dict[str, dict[str, Message]] = {}
    if traces:
        rows = s.exec(select(Message).where(col(Message.trace_id).in_(traces)).order_by(col(Message.id)))
        for row in rows:
            found.setdefault(row.trace_id, {}).setdefault(row.role, row)
    return found


def _passages(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"n": f.get("n"), "id": f.get("id"), "ref": f.get("ref")} for f in notes]


def _feedback(s: Session, start: datetime, before: int | None, limit: int) -> Page:
    query = select(ReplyFeedback).where(col(ReplyFeedback.created_at) >= start)
    if before is not None:
        query = query.where(col(ReplyFeedback.id) < before)
    rows = list(s.exec(query.order_by(col(ReplyFeedback.id).desc()).limit(limit + 1)))
    page, more = rows[:limit], len(rows) > limit
    traces = [r.trace_id for r in page]
    said, notes = _exchange(s, traces), footnotes.of(s, traces)
    items = []
    for row in page:
        question, answer = said.get(row.trace_id, {}).get("user"), said.get(row.trace_id, {}).get("assistant")
        items.append(
            {
                "id": row.id,
                "time": row.created_at.isoformat(),
                "platform": row.platform,
                "verdict": row.verdict,
                "emoji": row.emoji,
                "chat": answer.chat_key if answer else "",
                "question": question.text if question else "",
                "answer": answer.text if answer else "",
                "level": answer.level if answer else None,
                "passages": _passages(notes.get(row.trace_id, [])),
                "trace_id": row.trace_id,
            }
        )
    return Page(items, page[-1].id if more and page else None)


def _unanswered(s: Session, start: datetime, before: int | None, limit: int) -> Page:
    query = (
        select(Message, ReplyStats)
        .join(ReplyStats, col(ReplyStats.trace_id) == col(Message.trace_id))
        .where(ASKED, col(Message.created_at) >= start, or_(col(ReplyStats.level) == 2, col(ReplyStats.cited) == 0))
    )
    if before is not None:
        query = query.where(col(Message.id) < before)
    rows = list(s.exec(query.order_by(col(Message.id).desc()).limit(limit + 1)))
    page, more = rows[:limit], len(rows) > limit
    items = [
        {
            "id": question.id,
            "time": question.created_at.isoformat(),
            "platform": stats.platform,
            "chat": question.chat_key,
            "question": question.text,
            "level": LEVELS.get(stats.level, str(stats.level)),
            "passages_cited": stats.cited,
            "trace_id": question.trace_id,
        }
        for question, stats in page
    ]
    return Page(items, page[-1][0].id if more and page else None)


def _chats(s: Session, after: str | None, limit: int) -> Page:
    query = select(Chat, ChatSettingsRow).join(
        ChatSettingsRow, col(ChatSettingsRow.chat_key) == col(Chat.key), isouter=True
    )
    if after is not None:
        query = query.where(col(Chat.key) > after)
    rows = list(s.exec(query.order_by(col(Chat.key)).limit(limit + 1)))
    page, more = rows[:limit], len(rows) > limit
    items = [
        {
            "chat": chat.key,
            "platform": chat.platform,
            "group": chat.is_group,
            "skill": chat.skill or "default",
            "script": (row.script if row else None) or "auto",
            "daily": f"{row.daily_time} {row.daily_zone}" if row and row.daily_time else "off",
            "digest": bool(row and row.digest),
            "model": (row.model if row else None) or "default",
            "since": chat.created_at.isoformat(),
        }
        for chat, row in page
    ]
    return Page(items, page[-1][0].key if more and page else None)


def csv_cell(value: object) -> str:
    """A value as one CSV cell's text (lists of passages as their references)."""
    if isinstance(value, list):
        return "; ".join(str(v.get("ref") or v.get("id")) if isinstance(v, dict) else str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)
