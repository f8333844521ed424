"""Decide whether a Telegram message is for Fuzi, and turn it into an :class:`Incoming`.

Private chats: every message. Groups and supergroups: only when the bot is mentioned (an
``@username`` entity or a text mention of the bot), when the message replies to one of the bot's
messages, or on a command (``/cmd`` or ``/cmd@botname``; ``/cmd@otherbot`` is not ours).
Other group text goes to the engine as context (``addressed=False``), with no answer; other
group messages, channels and messages from bots are ignored — except an anonymous admin, whose
messages Telegram sends "from" GroupAnonymousBot with the group as `sender_chat`. A photo's or
document's caption is read as the message's text (a caption that mentions the bot addresses it, as text does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from telegram import Message, MessageEntity
from telegram.constants import ChatType

from adapters.telegram.quotes import quotes_of
from core.types import ASK_COMMAND, Incoming, parse_command


@dataclass(frozen=True)
class Route:
    """What to do with a message.

    kind: "text" (a question or chat for the engine), "command" (command + args), "non_text"
    (a sticker, photo, voice … that is addressed to the bot) or "context" (group text not addressed
    to the bot: the engine may keep it as conversation context; nothing is sent back).
    """

    kind: str
    text: str = ""
    command: str | None = None


def _mentions_bot(message: Message, bot_id: int, username: str) -> bool:
    entities = message.parse_entities() if message.text else message.parse_caption_entities()
    handle = f"@{username}".lower()
    for entity, text in entities.items():
        if entity.type == MessageEntity.MENTION and text.lower() == handle:
            return True
        if entity.type == MessageEntity.TEXT_MENTION and entity.user and entity.user.id == bot_id:
            return True
    return False


def _replies_to_bot(message: Message, bot_id: int) -> bool:
    original = message.reply_to_message
    return bool(original and original.from_user and original.from_user.id == bot_id)


def strip_mention(text: str, username: str) -> str:
    """Remove ``@username`` (any case) from a message and tidy the spaces it leaves."""
    cleaned = re.sub(rf"@{re.escape(username)}\b", " ", text, flags=re.IGNORECASE)
    return re.sub(r"[ \t]{2,}", " ", cleaned).strip()


def anonymous_admin(message: Message) -> bool:
    """An admin posting anonymously, as the group itself (`sender_chat` is the chat): an admin for settings."""
    return message.sender_chat is not None and message.sender_chat.id == message.chat.id


def route(message: Message, bot_id: int, username: str) -> Route | None:
    """The route for ``message``, or None when Fuzi should stay quiet."""
    if message.from_user is None or message.chat.type == ChatType.CHANNEL:
        return None
    if message.from_user.is_bot and not anonymous_admin(message):  # anonymous admins arrive "from" a bot
        return None
    private = message.chat.type == ChatType.PRIVATE
    if message.text:
        command, args = parse_command(message.text, username)
        if command == ASK_COMMAND:  # `/ask …` addresses Fuzi with a question (docs/telegram.md)
            return Route("text", strip_mention(args, username))
        if command:
            return Route("command", strip_mention(args, username), command)
    addressed = private or _mentions_bot(message, bot_id, username) or _replies_to_bot(message, bot_id)
    body = message.text or message.caption or ""  # a photo's or document's caption is its text
    if not addressed:
        return Route("context", body) if body else None
    if not body:
        return Route("non_text")
    return Route("text", strip_mention(body, username))


def conversation_id(message: Message) -> str:
    """The chat id the core sees: a forum topic is its own conversation."""
    if message.is_topic_message and message.message_thread_id:
        return f"{message.chat.id}/{message.message_thread_id}"
    return str(message.chat.id)


def incoming_for(message: Message, r: Route, user=None) -> Incoming:
    """Build the core's view of a routed message (``user`` overrides the sender, for buttons).

    An anonymous admin is one person, the group itself (its id and title), and an admin. A question
    carries what it replies to (adapters/telegram/quotes.py).
    """
    sender = user or message.from_user
    if sender is None:  # `route` never routes a message without a sender
        raise ValueError("a routed message has a sender")
    user_id, name = str(sender.id), sender.full_name or sender.username or ""
    anonymous = user is None and anonymous_admin(message)
    if anonymous:
        user_id, name = str(message.chat.id), message.author_signature or message.chat.title or "群管理员"
    return Incoming(
        platform="telegram",
        user_id=user_id,
        chat_id=conversation_id(message),
        text=r.text,
        user_name=name,
        is_group=message.chat.type in (ChatType.GROUP, ChatType.SUPERGROUP),
        addressed=r.kind != "context",
        command=r.command,
        message_id=str(message.message_id),
        sender_admin=True if anonymous else None,
        quoted=quotes_of(message) if r.kind == "text" else (),
    )
