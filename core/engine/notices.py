"""The notices the engine itself builds (a limit's refusal, an input turned away, an error).

Their words live in core/texts; here they get their reason and the current trace id.
"""

from __future__ import annotations

from core.events import Notice, NoticeReason
from core.language.text import reply_language
from core.logging import current_trace_id
from core.texts import say
from core.types import Incoming


def notice(text: str, reason: NoticeReason, extra: dict | None = None) -> Notice:
    """A notice under the trace id of the message being answered."""
    return Notice(text, reason, current_trace_id(), extra or {})


def error_notice(incoming: Incoming) -> Notice:
    """The apology for an unexpected failure, with the trace id (never the exception's text)."""
    return Notice(
        say("ERROR", reply_language(incoming.text[:500]), trace=incoming.trace_id), "error", incoming.trace_id
    )
