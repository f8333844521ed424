"""The input checks: the one gate for chat text and command arguments alike.

Empty (not stored), longer than `max_input_chars` (stored "too_long"), or refused by the guard's
input review (stored with the guard's reason, e.g. "injection") → `Turned`, carrying the notice the
person is shown. `/remember` must not store (and so put into every later prompt) what the guard
refuses in a message, so command arguments pass the same gate.
"""

from __future__ import annotations

import re
from dataclasses import replace

import structlog

from core.engine.notices import notice
from core.events import Notice, NoticeReason
from core.language.text import reply_language
from core.ports import Guard
from core.storage.status import MessageStatus
from core.texts import say
from core.types import Incoming

log = structlog.get_logger(__name__)

# NUL (PostgreSQL text rejects it) and lone surrogates (undecodable bytes via surrogateescape, broken
# JSON escapes; no UTF-8 encoder takes them): replaced by U+FFFD so the message can always be stored.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class Turned(Exception):
    """The input checks turned the message away; `status` is stored (None: not stored)."""

    def __init__(self, notice: Notice, status: MessageStatus | None) -> None:
        super().__init__(notice.reason)
        self.notice = notice
        self.status = status


class InputChecks:
    """Length and the guard's review of one message or command argument.

    Args:
        guard: the input guard (control characters, the injection detector and its LLM opinion).
        max_chars: the one input length limit (FUZI_ENGINE_MAX_INPUT_CHARS).
    """

    def __init__(self, guard: Guard, max_chars: int) -> None:
        self._guard = guard
        self._max_chars = max_chars

    async def check(self, text: str, *, guard: bool = True) -> str:
        """The cleaned text, or `Turned`: empty (not stored), too long, or refused by the input guard.

        `guard=False` checks only emptiness and length (a command that screens its own arguments).
        """
        if not text.strip():
            raise Turned(rejected(say("EMPTY", None), "bad_input", why="empty", chars=len(text)), None)
        if len(text) > self._max_chars:
            refusal = rejected(
                say("TOO_LONG", reply_language(text[:500]), limit=self._max_chars),
                "bad_input",
                why="too_long",
                chars=len(text),
            )
            raise Turned(refusal, "too_long")
        if not guard:
            return text
        verdict = await self._guard.review_input(text)  # the local check, and the LLM's where it is unsure
        if verdict.reason == "empty" or not verdict.text.strip():  # only invisible or control characters
            raise Turned(
                rejected(verdict.refusal or say("EMPTY", None), "bad_input", why="empty", chars=len(text)),
                "empty",
            )
        if verdict.refusal is not None:
            raise Turned(notice(verdict.refusal, "injection"), verdict.reason or "injection")
        return verdict.text


def rejected(text: str, reason: NoticeReason, *, why: str, chars: int) -> Notice:
    """A notice for input turned away before admission, logged (ids and size, not the text)."""
    log.info("input_rejected", reason=why, chars=chars)
    return notice(text, reason)


def storable(incoming: Incoming) -> Incoming:
    """Replace characters no database or wire takes (NUL, lone surrogates) with U+FFFD: nothing is lost."""
    text, name = _UNSTORABLE.sub("\ufffd", incoming.text), _UNSTORABLE.sub("\ufffd", incoming.user_name)
    if text == incoming.text and name == incoming.user_name:
        return incoming
    return replace(incoming, text=text, user_name=name)
