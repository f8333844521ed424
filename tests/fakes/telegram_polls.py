"""The fake Bot API with polls: ``sendPoll`` (checked against the Bot API's limits) and ``poll_answer``
updates, as Telegram sends them for non-anonymous polls (the voter and the poll id; no chat).

Usage::

    async with FakeTelegramPolls() as tg:
        ...  # the bot sends a quiz: tg.polls[poll_id]
        tg.poll_answer(poll_id, user_id=42, option_ids=[1])
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.telegram_api import FakeTelegram, SentMessage, _BadRequest


@dataclass
class SentPoll:
    """A poll the bot sent, with everything it asked for."""

    poll_id: str
    chat_id: int
    message_id: int
    question: str
    options: list[str]
    type: str
    is_anonymous: bool
    correct_option_ids: list[int]
    explanation: str | None
    open_period: int | None
    thread_id: int | None
    params: dict = field(default_factory=dict)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _flag(value: Any, default: bool) -> bool:
    if value is None:
        return default
    return str(value).lower() in ("true", "1")


class FakeTelegramPolls(FakeTelegram):
    """FakeTelegram plus ``sendPoll`` and ``poll_answer`` (see the module docstring)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.polls: dict[str, SentPoll] = {}
        self._poll_ids = itertools.count(5_000_000_000)

    async def _m_sendPoll(self, p: dict) -> dict:
        chat_id = int(p["chat_id"])
        options = [o["text"] if isinstance(o, dict) else str(o) for o in _json(p.get("options")) or []]
        question = str(p.get("question") or "")
        kind = str(p.get("type") or "regular")
        correct = [int(i) for i in _json(p.get("correct_option_ids")) or []]
        if p.get("correct_option_id") is not None:
            correct = [int(p["correct_option_id"])]
        explanation = p.get("explanation")
        period = int(p["open_period"]) if p.get("open_period") is not None else None
        if not 1 <= len(question) <= 300:
            raise _BadRequest("POLL_QUESTION_INVALID")
        if not 2 <= len(options) <= 12 or any(not 1 <= len(o) <= 100 for o in options):
            raise _BadRequest("POLL_OPTION_INVALID")
        if len(set(options)) != len(options):
            raise _BadRequest("POLL_OPTION_DUPLICATE")
        if kind == "quiz" and (len(correct) != 1 or not 0 <= correct[0] < len(options)):
            raise _BadRequest("wrong correct option id")
        if explanation is not None and len(str(explanation)) > 200:
            raise _BadRequest("explanation is too long")
        if period is not None and not 5 <= period <= 600:
            raise _BadRequest("wrong open period")
        thread = int(p["message_thread_id"]) if p.get("message_thread_id") is not None else None
        poll = SentPoll(
            str(next(self._poll_ids)),
            chat_id,
            next(self._message_ids),
            question,
            options,
            kind,
            _flag(p.get("is_anonymous"), True),
            correct,
            str(explanation) if explanation is not None else None,
            period,
            thread,
            dict(p),
        )
        self.polls[poll.poll_id] = poll
        self.messages[(chat_id, poll.message_id)] = SentMessage(
            chat_id, poll.message_id, f"[poll] {question}", question, None, None, None
        )
        return self._poll_message(poll)

    def _poll_message(self, poll: SentPoll) -> dict:
        body: dict[str, Any] = {
            "id": poll.poll_id,
            "question": poll.question,
            "options": [{"text": o, "voter_count": 0, "persistent_id": f"o{i}"} for i, o in enumerate(poll.options)],
            "total_voter_count": 0,
            "is_closed": False,
            "is_anonymous": poll.is_anonymous,
            "type": poll.type,
            "allows_multiple_answers": False,
            "allows_revoting": _flag(poll.params.get("allows_revoting"), False),
            "members_only": _flag(poll.params.get("members_only"), False),
        }
        if poll.type == "quiz":
            body["correct_option_ids"] = poll.correct_option_ids
        if poll.explanation:
            body["explanation"] = poll.explanation
        if poll.open_period:
            body["open_period"] = poll.open_period
        chat_type = "private" if poll.chat_id > 0 else "supergroup"
        return {
            "message_id": poll.message_id,
            "date": int(time.time()),
            "chat": {"id": poll.chat_id, "type": chat_type},
            "from": {"id": 777000111, "is_bot": True, "first_name": "Fuzi"},
            "poll": body,
        }

    def poll_answer(
        self, poll_id: str, *, user_id: int | None = 42, option_ids: list[int], name: str = "Yan Hui", voter_chat=None
    ) -> dict:
        """Push a ``poll_answer`` update (``option_ids`` empty: a retracted vote; ``user_id`` None with
        ``voter_chat``: an anonymous admin voting as the chat)."""
        answer: dict[str, Any] = {
            "poll_id": poll_id,
            "option_ids": option_ids,
            "option_persistent_ids": [f"o{i}" for i in option_ids],
        }
        if user_id is not None:
            answer["user"] = {"id": user_id, "is_bot": False, "first_name": name}
        if voter_chat is not None:
            answer["voter_chat"] = {"id": voter_chat, "type": "supergroup", "title": "group"}
        return self.push_update({"poll_answer": answer})
