"""Where a reply is shown: one platform message, as a typed value and its one text form.

Adapters tell the engine where a running reply is shown (`Engine.record_shown`), so that a crash can
be repaired (the frozen message is edited into "interrupted, please ask again") and a reaction on the
message finds the reply it is about. The database keeps the text form ``<platform>:<chat>:<message>``
(`message.shown_in`); ``<platform>:<chat>:`` names a chat where nothing was
shown yet. Only this module writes or reads that form.
"""

from __future__ import annotations

from dataclasses import dataclass

STORED_CHARS = 200  # the size of the `message.shown_in` column


@dataclass(frozen=True)
class ShownIn:
    """A platform message (or, with no ``message_id``, only its chat).

    Attributes:
        platform: "telegram", "discord", "console" …
        chat: the platform's chat id as text; Telegram's forum topics are ``<chat>/<topic>``.
        message_id: the platform's message id; None when nothing was shown yet.
    """

    platform: str
    chat: str
    message_id: int | None = None

    def __str__(self) -> str:
        return self.format()

    def format(self) -> str:
        """The stored text form, ``<platform>:<chat>:<message>`` (``<platform>:<chat>:`` without one)."""
        message = "" if self.message_id is None else str(self.message_id)
        return f"{self.platform}:{self.chat}:{message}"

    def stored(self) -> str:
        """The text form as the `message.shown_in` column keeps it (cut to its size): what a reply is
        noted under and what a reaction looks it up by."""
        return self.format()[:STORED_CHARS]

    @classmethod
    def parse(cls, text: str) -> ShownIn:
        """Read the text form back; ValueError when ``text`` is not one."""
        platform, sep, rest = text.partition(":")
        chat, sep2, message = rest.rpartition(":")
        if not (sep and sep2 and platform and chat):
            raise ValueError(f"not a shown-in reference: {text[:80]!r}")
        return cls(platform, chat, int(message) if message else None)

    @classmethod
    def chat_of(cls, chat_key: str) -> ShownIn:
        """The chat of a chat key (``telegram:<chat>``), with no message: nothing was shown there yet."""
        platform, _, chat = chat_key.partition(":")
        return cls(platform, chat)
