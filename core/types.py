"""Plain data the core receives from adapters. Adapters own platform types; the core sees only these."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field


def new_trace_id() -> str:
    """Return a short random id that ties together every log line one message causes."""
    return uuid.uuid4().hex[:16]


@dataclass(frozen=True)
class Incoming:
    """One message (or command) addressed to Fuzi, as an adapter saw it.

    Attributes:
        platform: "console", "telegram" or "discord".
        user_id: the sender's id on that platform (string form).
        chat_id: the conversation on that platform: DM, group, channel or thread id.
        text: what the user wrote (for a command: the arguments only).
        user_name: display name, used to label speakers in group windows.
        is_group: True for groups, supergroups, guild channels and threads.
        addressed: True when the bot was addressed (DM, mention, reply to the bot, command).
        command: command name without slash and bot suffix ("help", "skill" …), None for chat text.
        message_id: the platform message id, when there is one.
        trace_id: bound into every log line this message causes.
    """

    platform: str
    user_id: str
    chat_id: str
    text: str
    user_name: str = ""
    is_group: bool = False
    addressed: bool = True
    command: str | None = None
    message_id: str | None = None
    trace_id: str = field(default_factory=new_trace_id)

    @property
    def account(self) -> str:
        """`platform:user_id`, the form used by FUZI_ADMIN_IDS."""
        return f"{self.platform}:{self.user_id}"

    @property
    def chat_key(self) -> str:
        """`platform:chat_id`, unique across platforms."""
        return f"{self.platform}:{self.chat_id}"


def parse_command(text: str, bot_username: str | None = None) -> tuple[str | None, str]:
    """Split "/cmd@bot args" into ("cmd", "args"); plain text gives (None, text).

    A command addressed to another bot (`/cmd@otherbot`) is not ours: (None, text).
    """
    stripped = text.strip()
    if not stripped.startswith("/") or len(stripped) < 2:
        return None, text
    head, _, rest = stripped[1:].partition(" ")
    name, _, target = head.partition("@")
    if target and bot_username and target.lower() != bot_username.lower().lstrip("@"):
        return None, text
    if not name or not name.replace("_", "").isalnum():
        return None, text
    return name.lower(), rest.strip()
