"""The web history in the script its reader saw.

Fuzi's replies are stored as the engine wrote them, in Simplified (the corpus's script: the model's
context, summaries and memory read one script); the stream converts them on the way out
(`ScriptConverter.event`). A page of history reread from storage must show the same thing, so this
view converts each reply (its text and its footnotes' references) the way the engine chooses the
script: the chat's setting, else the script of the question the reply answered. The person's own
messages are shown as they were written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from core.language import Script
from core.language.script import ScriptConverter


class _Settings(Protocol):
    async def get(self, chat_key: str) -> Any: ...


class ScriptedHistory:
    """A chat store whose `messages` come back in the script each reply was shown in.

    Args:
        store: the stored chats (core/storage/chatlog.py `ChatLogRepo`): chats, messages, rename, delete.
        settings: the chats' settings (its `script`: "simplified", "traditional", None for auto).
        scripts: the converter the engine uses.
    """

    def __init__(self, store, settings: _Settings, scripts: ScriptConverter):
        self._store = store
        self._settings = settings
        self._scripts = scripts

    async def chats(self, prefix: str, limit: int = 200) -> Sequence[Any]:
        return await self._store.chats(prefix, limit)

    async def has(self, chat_key: str) -> bool:
        return await self._store.has(chat_key)

    async def rename(self, chat_key: str, title: str) -> bool:
        return await self._store.rename(chat_key, title)

    async def delete(self, chat_key: str) -> int:
        return await self._store.delete(chat_key)

    async def messages(self, chat_key: str, *, before: int | None = None, limit: int = 50) -> list[Any]:
        lines = list(await self._store.messages(chat_key, before=before, limit=limit))
        if not any(line.role == "assistant" for line in lines):
            return lines
        setting: Script | None = (await self._settings.get(chat_key)).script
        question = ""
        if lines[0].role == "assistant":  # the question it answered is on the page before
            earlier = await self._store.messages(chat_key, before=lines[0].id, limit=1)
            question = earlier[0].text if earlier and earlier[0].role == "user" else ""
        shown = []
        for line in lines:
            if line.role == "user":
                question = line.text
            elif self._scripts.reply_script(setting, question) == "traditional":
                line = self._traditional(line)
            shown.append(line)
        return shown

    def _traditional(self, line: Any) -> Any:
        convert = self._scripts.traditional
        notes = [{**note, "ref": convert(note.get("ref") or "")} for note in line.citations]
        return replace(line, text=convert(line.text), citations=notes)
