"""Per-message log context: bind a trace id (and who/where) into structlog's contextvars.

Everything a message causes — LLM calls, tool calls, fallback level, errors, tasks started while
it is bound — logs the same `trace_id`, because asyncio tasks copy the context they start in.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import structlog
from structlog.contextvars import bind_contextvars, reset_contextvars, unbind_contextvars

from core.types import Incoming


def trace_fields(incoming: Incoming) -> dict[str, str]:
    """The ids bound for one message: trace_id, platform, chat (chat key) and user (account)."""
    return {
        "trace_id": incoming.trace_id,
        "platform": incoming.platform,
        "chat": incoming.chat_key,
        "user": incoming.account,
    }


@contextmanager
def bind_trace(incoming: Incoming) -> Iterator[str]:
    """Bind the message's trace fields for the duration of the block; yields the trace id.

    Safe in async generators: if the block is left from another context (a generator finalised
    elsewhere) the keys are unbound instead of reset.
    """
    fields = trace_fields(incoming)
    tokens = bind_contextvars(**fields)
    try:
        yield incoming.trace_id
    finally:
        try:
            reset_contextvars(**tokens)
        except ValueError:  # the block ended in a different Context than it started in
            unbind_contextvars(*fields)


def current_trace_id() -> str:
    """The trace id bound in this context, or "" outside any message."""
    return str(structlog.contextvars.get_contextvars().get("trace_id", ""))
