"""Every status a stored message can have: one vocabulary, checked by the type checker.

User messages: "ok" (answered), "too_long", "empty" (nothing left after cleaning), "injection"
(the input guard refused it), "refused" (turned away for another reason), "busy", "rate_limited",
"context" (group chatter not addressed to Fuzi), "interrupted" (its reply was cut short by a crash).
Replies: "ok", "blocked" (the output guard replaced it), "cancelled" (the partial text shown before
/cancel or before the adapter stopped reading), "undelivered" (stored, but the final text did not
reach the chat), "streaming" while it runs, "interrupted" when a crash cut it short.
"""

from __future__ import annotations

from typing import Literal

MessageStatus = Literal[
    "ok",
    "too_long",
    "empty",
    "injection",
    "refused",
    "busy",
    "rate_limited",
    "context",
    "blocked",
    "cancelled",
    "undelivered",
    "streaming",
    "interrupted",
]

STREAMING: MessageStatus = "streaming"
INTERRUPTED: MessageStatus = "interrupted"
