"""Recorded Bot API shapes for groups: chat members, quoted replies, anonymous admins, inline queries.

Field sets follow the Bot API 7.x/8.x objects as Telegram sends them (ChatMemberOwner /
ChatMemberAdministrator / ChatMemberMember, Message.reply_to_message / quote / external_reply with a
MessageOrigin, GroupAnonymousBot as `from` with `sender_chat`, InlineQuery).
"""

from __future__ import annotations

import itertools
import time
from typing import Any

GROUP_ANONYMOUS_BOT = {"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}
_ids = itertools.count(500_000)


def user(user_id: int, name: str, *, is_bot: bool = False) -> dict:
    return {"id": user_id, "is_bot": is_bot, "first_name": name, "language_code": "zh-hans"}


def chat_member(status: str, user_id: int) -> dict:
    """getChatMember's result for `status` ("creator", "administrator", "member", "left", "kicked", "restricted")."""
    member: dict[str, Any] = {"status": status, "user": user(user_id, f"user{user_id}")}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member.update(
            can_be_edited=False,
            is_anonymous=False,
            can_manage_chat=True,
            can_delete_messages=True,
            can_manage_video_chats=True,
            can_restrict_members=True,
            can_promote_members=False,
            can_change_info=True,
            can_invite_users=True,
            can_post_stories=False,
            can_edit_stories=False,
            can_delete_stories=False,
            can_pin_messages=True,
            can_manage_topics=False,
        )
    elif status == "restricted":
        member.update(
            is_member=True,
            can_send_messages=False,
            can_send_audios=False,
            can_send_documents=False,
            can_send_photos=False,
            can_send_videos=False,
            can_send_video_notes=False,
            can_send_voice_notes=False,
            can_send_polls=False,
            can_send_other_messages=False,
            can_add_web_page_previews=False,
            can_change_info=False,
            can_invite_users=False,
            can_pin_messages=False,
            can_manage_topics=False,
            until_date=0,
        )
    elif status == "kicked":
        member["until_date"] = 0
    return member


def group_message(chat_id: int, text: str | None, sender: dict, **fields: Any) -> dict:
    """A message as it appears inside another one (`reply_to_message`): no further reply inside."""
    msg: dict[str, Any] = {
        "message_id": next(_ids),
        "date": int(time.time()) - 60,
        "chat": {"id": chat_id, "type": "supergroup", "title": f"group {chat_id}"},
        "from": sender,
    }
    if text is not None:
        msg["text"] = text
    msg.update(fields)
    return msg


def quote(text: str, position: int = 0, *, manual: bool = True) -> dict:
    """Message.quote (TextQuote): the part of the replied-to message the person selected."""
    return {"text": text, "position": position, "is_manual": manual}


def external_reply(
    origin_user: dict | None = None, *, hidden_name: str | None = None, chat: dict | None = None
) -> dict:
    """Message.external_reply (ExternalReplyInfo): a message from another chat, with its origin."""
    if hidden_name is not None:
        origin: dict[str, Any] = {"type": "hidden_user", "date": 0, "sender_user_name": hidden_name}
    else:
        origin = {"type": "user", "date": 0, "sender_user": origin_user}
    info: dict[str, Any] = {"origin": origin}
    if chat is not None:
        info.update(chat=chat, message_id=next(_ids))
    return info


def anonymous_admin(chat_id: int, *, signature: str | None = None) -> dict:
    """The `from`/`sender_chat` fields of a message an admin sent anonymously, as the group."""
    fields: dict[str, Any] = {
        "from": GROUP_ANONYMOUS_BOT,
        "sender_chat": {"id": chat_id, "type": "supergroup", "title": f"group {chat_id}"},
    }
    if signature:
        fields["author_signature"] = signature
    return fields


def inline_query(query: str, user_id: int, *, offset: str = "", chat_type: str | None = "sender") -> dict:
    """An InlineQuery update body (`@bot query` typed in any chat)."""
    body: dict[str, Any] = {
        "id": str(next(_ids)),
        "from": user(user_id, f"user{user_id}"),
        "query": query,
        "offset": offset,
    }
    if chat_type:
        body["chat_type"] = chat_type
    return body
