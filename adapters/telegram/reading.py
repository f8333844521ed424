"""The reading room in Telegram: `/read`, the menu button, and citation links.

With FUZI_WEB_PUBLIC_URL set, the reading room (`fuzi serve`'s page `/read`) is the bot's Mini App:
`/read` in a private chat answers with a `web_app` button (Telegram opens the page inside the chat,
signed in as the person: adapters/web/tma.py); in a group, where `web_app` buttons are not allowed,
with a link that opens the bot's main Mini App (`https://t.me/<bot>?startapp`, registered with
@BotFather; docs/telegram.md); the bot's menu button opens it too (`setChatMenuButton`), and the
footnotes of answers link to their passage there. Without the setting `/read` says that the reading
room is not open here and footnotes stay plain.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

import structlog
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, MenuButtonWebApp, Message, WebAppInfo
from telegram.constants import ChatType
from telegram.error import TelegramError

log = structlog.get_logger(__name__)

READ_COMMAND = "read"
_PASSAGE = re.compile(r"^[a-z]{1,16}:\d{1,4}(?:\.\d{1,4})?$")
READ_SUMMARY = ("阅读经典：逐章读书，书签与续读", "Read the classics chapter by chapter")
BUTTON = "📖 读书"
MENU_TEXT = "读书"
INVITE = "四书与《诗经》逐章阅读：简繁切换、白话与英文释义、书签，下次从停下处继续。"
NOT_OPEN = "阅读室尚未在此开放（需设置 FUZI_WEB_PUBLIC_URL）。"


@dataclass(frozen=True)
class ReadingRoomLink:
    """Addresses of the reading room under FUZI_WEB_PUBLIC_URL."""

    public_url: str

    @property
    def url(self) -> str:
        return self.public_url.rstrip("/") + "/read"

    def passage(self, passage_id: str) -> str:
        """The reading room opened at one passage (its chapter, the passage in view), on the web."""
        return f"{self.url}?p={quote(passage_id, safe='')}"

    def citation_link(self, bot_username: str | None) -> Callable[[str], str | None]:
        """Where a footnote in an answer points: the bot's main Mini App opened at the passage
        (``startapp=lunyu-3_22``: signed in, inside Telegram), or the web address without a bot
        name; a citation that is no passage of the books (a web page) gets no link."""

        def link(passage_id: str) -> str | None:
            if not _PASSAGE.match(passage_id):
                return None
            if bot_username:
                start = passage_id.replace(":", "-").replace(".", "_")
                return f"https://t.me/{bot_username}?startapp={start}"
            return self.passage(passage_id)

        return link


async def answer_read(bot: Bot, message: Message, link: ReadingRoomLink | None) -> None:
    """Answer `/read`: a Mini App button in a private chat, a link to the main Mini App in a group."""
    if link is None:
        await message.reply_text(NOT_OPEN)
        return
    if message.chat.type == ChatType.PRIVATE:
        button = InlineKeyboardButton(BUTTON, web_app=WebAppInfo(url=link.url))
    else:
        target = f"https://t.me/{bot.username}?startapp=read" if bot.username else link.url
        button = InlineKeyboardButton(BUTTON, url=target)
    await message.reply_text(INVITE, reply_markup=InlineKeyboardMarkup([[button]]))


async def set_menu_button(bot: Bot, link: ReadingRoomLink) -> None:
    """The bot's menu button (beside the input field of every private chat) opens the reading room."""
    try:
        await bot.set_chat_menu_button(menu_button=MenuButtonWebApp(MENU_TEXT, WebAppInfo(url=link.url)))
    except TelegramError as exc:  # a convenience: /read still works
        log.warning("telegram_menu_button_not_set", error=type(exc).__name__)
        return
    log.info("telegram_menu_button_set")
