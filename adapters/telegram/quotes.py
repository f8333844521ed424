"""What a Telegram message replies to, as `core.types.Quote`s for the engine.

* `reply_to_message`: the replied-to message's text or caption, and its author's name. Telegram
  includes it even when privacy mode kept the original message from the bot, so "reply to a
  friend's message and ask Fuzi" works with privacy mode on. It never carries a further
  `reply_to_message`, so on Telegram the chain is one message deep.
* `quote`: the part of that message the person selected; it replaces the whole text.
* `external_reply`: a reply to a message in another chat or topic; only its origin (who wrote it)
  and, when the person selected some, the `quote` text come with it.
"""

from __future__ import annotations

from telegram import Message, MessageOrigin

from core.types import Quote


def quotes_of(message: Message) -> tuple[Quote, ...]:
    """The quote(s) of `message` (empty when it replies to nothing)."""
    selected = message.quote.text if message.quote and message.quote.text else None
    original = message.reply_to_message
    if original is not None:
        text = selected or original.text or original.caption or ""
        author = _author(original)
        from_bot = bool(original.from_user and original.from_user.is_bot and original.sender_chat is None)
        return (Quote(text, author, from_bot, 1, "quote" if selected else "reply"),)
    external = message.external_reply
    if external is not None:
        return (Quote(selected or "", _origin_name(external.origin), False, 1, "external"),)
    return ()


def _author(message: Message) -> str:
    if message.sender_chat is not None:  # an anonymous admin or a channel posting
        return message.author_signature or message.sender_chat.title or ""
    user = message.from_user
    return (user.full_name or user.username or "") if user else ""


def _origin_name(origin: MessageOrigin) -> str:
    """The author of a message in another chat, as far as its origin tells."""
    user = getattr(origin, "sender_user", None)
    if user is not None:
        return user.full_name or user.username or ""
    if name := getattr(origin, "sender_user_name", None):  # a hidden user
        return name
    chat = getattr(origin, "sender_chat", None) or getattr(origin, "chat", None)
    return (chat.title or "") if chat is not None else ""
