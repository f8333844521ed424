"""The `/settings` inline keyboard for admins, and what a press on it does.

`/settings` shows the chat's settings to anyone; the keyboard comes only when the engine says the
sender may change them (`extra["can_change"]`). A press sends `/settings <key> <value>` to the engine
as the person who pressed — so the engine checks that person, not whoever asked for the menu. A
refused press is answered with a pop-up alert (one line) instead of a message in the group; an
accepted one edits the menu to show the new settings.
"""

from __future__ import annotations

from collections.abc import Mapping

import structlog
from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.error import TelegramError

from core.events import Notice
from core.ports import Engine
from core.types import Incoming

log = structlog.get_logger(__name__)

SETTINGS_CALLBACK_PREFIX = "set:"
_SCRIPTS = (("simplified", "简体"), ("traditional", "繁體"), ("auto", "自动 auto"))


def _button(label: str, args: str, current: bool = False) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        ("✓ " if current else "") + label, callback_data=f"{SETTINGS_CALLBACK_PREFIX}{args}"[:64]
    )


def settings_keyboard(extra: Mapping) -> InlineKeyboardMarkup | None:
    """Buttons for skill, script, digest (groups), the model (when FUZI_LLM_MODELS offers a choice) and
    switching the daily passage or quiz off; None for people who may not change the settings."""
    if not extra.get("can_change"):
        return None
    shown = extra.get("settings") or {}
    rows = [[_button(label, f"script {name}", shown.get("script") == name) for name, label in _SCRIPTS]]
    skills = extra.get("skills") or []
    rows.append(
        [_button(str(display).split(" (")[0], f"skill {name}", extra.get("skill") == name) for name, display in skills]
    )
    if "digest" in shown:
        on = shown["digest"] == "on"
        rows.append([_button("群聊评点 on", "digest on", on), _button("评点 off", "digest off", not on)])
    models = [m for m in extra.get("models") or [] if len(f"{SETTINGS_CALLBACK_PREFIX}model {m}".encode()) <= 64]
    for start in range(0, min(len(models), 9), 3):  # FUZI_LLM_MODELS: a row of three (a longer name: type it)
        rows.append([_button(m, f"model {m}", extra.get("model") == m) for m in models[start : start + 3]])
    if shown.get("daily", "off") != "off":
        rows.append([_button(f"每日一章 {shown['daily']} → off", "daily off")])
    if shown.get("quiz", "off") != "off":
        rows.append([_button(f"每日一题 {shown['quiz']} → off", "quiz off")])
    return InlineKeyboardMarkup(rows)


async def press_settings(engine: Engine, query: CallbackQuery, message: Message, incoming: Incoming) -> None:
    """Run the pressed change through the engine and answer the press (see the module doc)."""
    notice = None
    async for event in engine.handle(incoming):
        if isinstance(event, Notice):
            notice = event
    try:
        if notice is None or "refused" in notice.extra:
            text = notice.text if notice is not None else "…"
            await query.answer(text[:200], show_alert=True)
            return
        await query.answer("✓")
        await message.edit_text(notice.text, reply_markup=settings_keyboard(notice.extra))
    except TelegramError as exc:  # an old menu, an expired press, "not modified": nothing to repair
        log.info("settings_press_not_shown", error=type(exc).__name__)
