"""Photo, file, sticker, voice and reaction updates for the fake Bot API (tests/fakes/telegram_api.py).

Each helper stores the bytes (served by the fake's `getFile` and file URL) and pushes the update the
way Telegram shapes it: a photo in three sizes, a caption with its entities, a media group id for
albums, `message_reaction` with old and new reactions.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from tests.fakes.telegram_api import FakeTelegram, _auto_entities

_ids = itertools.count(1)


def add_file(tg: FakeTelegram, data: bytes) -> dict:
    """Store `data`; returns the file fields a message carries (file_id, file_unique_id, file_size)."""
    fid = f"F{next(_ids)}"
    tg.files[fid] = data
    return {"file_id": fid, "file_unique_id": f"u{fid}", "file_size": len(data)}


def _caption(caption: str | None) -> dict:
    if caption is None:
        return {}
    entities = _auto_entities(caption)
    return {"caption": caption, **({"caption_entities": entities} if entities else {})}


def _push(tg: FakeTelegram, chat_id: int, extra: dict, *, chat_type: str, user_id: int | None, **kw) -> dict:
    sender = user_id if user_id is not None else (chat_id if chat_type == "private" else 42)
    return tg.message(chat_id, None, chat_type=chat_type, user_id=sender, extra=extra, **kw)


def photo(
    tg: FakeTelegram,
    chat_id: int,
    data: bytes,
    *,
    caption: str | None = None,
    chat_type: str = "private",
    user_id: int | None = None,
    media_group_id: str | None = None,
    size: tuple[int, int] = (1280, 960),
    **kw: Any,
) -> dict:
    """A photo message: Telegram sends a thumbnail, a medium size and the largest (read last)."""
    small, medium = add_file(tg, data[:100]), add_file(tg, data)
    sizes = [
        small | {"width": 90, "height": 68},
        medium | {"width": size[0] // 2, "height": size[1] // 2},
        add_file(tg, data) | {"width": size[0], "height": size[1]},
    ]
    extra = {"photo": sizes, **_caption(caption)}
    if media_group_id:
        extra["media_group_id"] = media_group_id
    return _push(tg, chat_id, extra, chat_type=chat_type, user_id=user_id, **kw)


def document(tg: FakeTelegram, chat_id: int, data: bytes, mime: str, name: str, **kw: Any) -> dict:
    doc = add_file(tg, data) | {"mime_type": mime, "file_name": name}
    caption = kw.pop("caption", None)
    return _push(
        tg,
        chat_id,
        {"document": doc, **_caption(caption)},
        chat_type=kw.pop("chat_type", "private"),
        user_id=kw.pop("user_id", None),
        **kw,
    )


def sticker(tg: FakeTelegram, chat_id: int, *, animated: bool = True, **kw: Any) -> dict:
    st = add_file(tg, b"\x1f\x8b tgs") | {
        "width": 512,
        "height": 512,
        "type": "regular",
        "is_animated": animated,
        "is_video": False,
    }
    return _push(
        tg, chat_id, {"sticker": st}, chat_type=kw.pop("chat_type", "private"), user_id=kw.pop("user_id", None), **kw
    )


def voice(tg: FakeTelegram, chat_id: int, data: bytes, *, duration: int, **kw: Any) -> dict:
    v = add_file(tg, data) | {"duration": duration, "mime_type": "audio/ogg"}
    return _push(
        tg, chat_id, {"voice": v}, chat_type=kw.pop("chat_type", "private"), user_id=kw.pop("user_id", None), **kw
    )


def reaction(
    tg: FakeTelegram,
    chat_id: int,
    message_id: int,
    emoji: str | None,
    *,
    user_id: int = 42,
    old: str | None = None,
    chat_type: str = "private",
) -> dict:
    """A `message_reaction` update: `user_id` set `emoji` (None: took their reaction back) on a message."""
    chat = {"id": chat_id, "type": chat_type}
    chat.update({"first_name": "Yan Hui"} if chat_type == "private" else {"title": f"group {chat_id}"})
    as_list = lambda e: [{"type": "emoji", "emoji": e}] if e else []  # noqa: E731
    update = {
        "chat": chat,
        "message_id": message_id,
        "user": {"id": user_id, "is_bot": False, "first_name": "Yan Hui"},
        "date": int(time.time()),
        "old_reaction": as_list(old),
        "new_reaction": as_list(emoji),
    }
    return tg.push_update({"message_reaction": update})
