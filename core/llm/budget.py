"""How long the LLM calls of one reply may still take: the reply's deadline, seen by the transport.

The fallback ladder opens a :class:`ReplyBudget` for each reply (:func:`reply_budget`); every LLM call
made while it is open — the agent's rounds, the plain L1 stream, even in tasks started meanwhile,
which copy the context — reads it through :func:`current_budget`:

* the client caps each attempt's waits by the time left and does not start a retry that cannot
  finish in time (``LLMUnavailable`` at once instead of a request doomed to be cancelled);
* until the first token of the reply arrived, the wait is also capped by ``first_token_until``
  (``FUZI_ENGINE_DEGRADE_AFTER_S``): a person whose model sends nothing gets the lower level's answer
  within that time, while a reply whose tokens flow keeps the whole reply deadline;
* the breaker counts a call cancelled after the budget ran out as a failure (a hang), not as neutral.

Outside a reply (background memory updates) there is no budget and the client's own timeouts apply.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

_CURRENT: ContextVar[ReplyBudget | None] = ContextVar("fuzi_llm_reply_budget", default=None)


@dataclass
class ReplyBudget:
    """The time limits of one reply's LLM calls, on ``clock``.

    Attributes:
        until: every LLM call of the reply must be over by then (None: no limit).
        first_token_until: until the reply's first token arrived, calls must not wait past this
            (None: no such limit).
        clock: the monotonic clock both times are measured on.
        got_token: set by the client when the first token (text or tool call) of the reply arrived.
    """

    until: float | None = None
    first_token_until: float | None = None
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    got_token: bool = False

    def left(self) -> float | None:
        """Seconds until the reply's LLM deadline; None when there is none."""
        return None if self.until is None else self.until - self.clock()

    def wait_left(self) -> float | None:
        """Seconds a call may still wait for its next token now (first-token cap included)."""
        ends = [self.until] if self.until is not None else []
        if not self.got_token and self.first_token_until is not None:
            ends.append(self.first_token_until)
        return min(ends) - self.clock() if ends else None

    def expired(self) -> bool:
        """True when no more waiting is allowed."""
        left = self.wait_left()
        return left is not None and left <= 0


def current_budget() -> ReplyBudget | None:
    """The budget of the reply this code runs for, or None outside a reply."""
    return _CURRENT.get()


@contextmanager
def reply_budget(budget: ReplyBudget) -> Iterator[ReplyBudget]:
    """Make ``budget`` the current one for the LLM calls made inside the block (and tasks it starts)."""
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        try:
            _CURRENT.reset(token)
        except ValueError:  # left from another context (an async generator closed elsewhere)
            _CURRENT.set(None)


def capped(timeout_s: float | None, budget: ReplyBudget | None = None) -> float | None:
    """``timeout_s`` capped by the current budget's wait; never below zero."""
    budget = budget if budget is not None else current_budget()
    left = budget.wait_left() if budget is not None else None
    if left is None:
        return timeout_s
    left = max(0.0, left)
    return left if timeout_s is None else min(timeout_s, left)
