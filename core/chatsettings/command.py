"""`/settings`: show a chat's settings (anyone), change one (group admins; in a DM the person).

    /settings                         show
    /settings skill NAME              the chat's skill (also what /skill NAME changes)
    /settings script simplified|traditional|auto
    /settings daily HH:MM [Area/City] | off
    /settings digest on|off           groups only
    /settings books all|lunyu,mengzi|sishu   the books the daily passage is drawn from
    /settings quiz HH:MM [Area/City] | off   groups only: a daily quiz (core/quiz)
    /settings model NAME|default      the chat's LLM, one of FUZI_LLM_MODELS (offered when it lists any)

Every refusal is one line (bilingual). A change is stored with who made it (core/storage/
chat_settings.py) and announced to the `SettingsListener`s (the scheduler reacts to `digest off`
by deleting what it stored, and adds a line saying what is stored when it goes on).
"""

from __future__ import annotations

from typing import Any, Protocol

import structlog

from core.chatsettings.admins import ChatAdmins, Permission
from core.chatsettings.values import BadValue, parse_books, parse_daily, parse_model, parse_script, parse_switch
from core.llm.choice import ModelChoice
from core.ports import CommandResult, Turn
from core.skills import SkillRegistry
from core.storage.chat_settings import (
    SETTING_FIELDS,
    ChatSettings,
    ChatSettingsRepo,
    Daily,
    SettingChange,
    SettingField,
    SettingValue,
)
from core.types import Incoming

log = structlog.get_logger(__name__)

USAGE = (
    "用法 Usage: /settings · /settings skill <name> · /settings script simplified|traditional|auto · "
    "/settings daily HH:MM [Area/City] | off · /settings digest on|off · /settings quiz HH:MM [Area/City] | off · "
    "/settings books all|lunyu,mengzi"
)
_LABELS: dict[SettingField, str] = {
    "skill": "问学方式 skill",
    "script": "字体 script",
    "daily": "每日一章 daily",
    "digest": "群聊评点 digest",
    "books": "每日一章选自 books",
    "quiz": "每日一题 quiz",
    "model": "模型 model",
}
MODEL_USAGE = "/settings model <name>|default"
_REFUSED: dict[Permission, str] = {
    "not_admin": "只有群管理员可以改本群设置。Only group admins can change this chat's settings.",
    "unknown": "此刻无法确认你是否为管理员，请稍后再试。Could not check whether you are an admin; try again shortly.",
}


class SettingsListener(Protocol):
    """Told after a setting really changed (old != new). May return one line to add to the reply
    (e.g. "digest on: the group's messages are kept for 48 h"). Failures are logged, never shown."""

    async def settings_changed(self, change: SettingChange, incoming: Incoming) -> str | None: ...


class SettingsCommand:
    """The /settings handler (register with `register(router)`), also used by /skill to change the skill.

    Args:
        repo: the settings repository.
        skills: the skill registry (names, default).
        admins: the admin rule and the platforms' checks.
        models: the default model and those a chat may pick (None, or nothing to pick: no `model`).
    """

    def __init__(
        self, repo: ChatSettingsRepo, skills: SkillRegistry, admins: ChatAdmins, models: ModelChoice | None = None
    ):
        self._repo = repo
        self.models = models
        self._skills = skills
        self.admins = admins
        self._listeners: list[SettingsListener] = []

    def add_listener(self, listener: SettingsListener) -> None:
        """Call `listener.settings_changed` after every stored change."""
        self._listeners.append(listener)

    def register(self, router) -> None:
        router.register("settings", self, summary_zh="本聊天的设置（管理员可改）", summary_en="This chat's settings")

    async def __call__(self, turn: Turn, args: str) -> CommandResult:
        words = args.split(None, 1)
        if not words:
            return await self.show(turn)
        key, rest = words[0].lower(), (words[1] if len(words) > 1 else "")
        if key not in self._known(turn.incoming):
            return _refusal(f"没有「{key[:24]}」这项设置。No setting {key[:24]!r}. {USAGE}", "unknown_key")
        try:
            value = await self._parse(turn, key, rest)
        except BadValue as exc:
            return _refusal(str(exc), "bad_value")
        return await self.change(turn, key, value)

    async def show(self, turn: Turn) -> CommandResult:
        """The chat's settings; `extra["can_change"]` tells adapters whether to offer buttons."""
        settings = await self._repo.get(turn.incoming.chat_key)
        can_change = await self.admins.may_change(turn.incoming)
        lines = ["本聊天的设置 Settings of this chat:"]
        lines += [f"· {_LABELS[f]}: {self._shown(settings, f)}" for f in self._fields(turn.incoming)]
        lines.append(self._usage() if can_change else "（只有群管理员可以更改 only group admins can change them）")
        return CommandResult("\n".join(lines), extra=self._extra(settings, turn.incoming, can_change))

    async def change(self, turn: Turn, field: SettingField, value: SettingValue) -> CommandResult:
        """Store one change when the sender may make it; the reply says what changed or why not."""
        incoming = turn.incoming
        if field == "digest" and not incoming.is_group:
            return _refusal("群聊评点只用于群组。The digest is for groups only.", "groups_only")
        if field == "quiz" and not incoming.is_group:
            return _refusal("每日一题只用于群组。The daily quiz is for groups only.", "groups_only")
        permission = "operator" if turn.is_admin else await self.admins.permission(incoming, fresh=True)
        if permission in _REFUSED:
            log.info("settings_refused", field=field, permission=permission)
            return _refusal(_REFUSED[permission], permission)
        change = await self._repo.change(
            incoming.chat_key,
            field,
            value,
            account=incoming.account,
            platform=incoming.platform,
            is_group=incoming.is_group,
        )
        lines = [self._changed_line(change)]
        if change.changed:
            lines += [line for line in [await self._tell(change, incoming)] if line]
        extra = self._extra(change.settings, incoming, True) | {"changed": field}
        return CommandResult("\n".join(lines), extra=extra)

    async def _parse(self, turn: Turn, key: SettingField, rest: str) -> SettingValue:
        if key == "skill":
            skill = self._skills.find(rest)
            if skill is None:
                names = ", ".join(name for name, _ in self._skills.choices())
                raise BadValue(
                    f"没有「{rest.strip()[:24]}」这一门。可选：{names}。No such skill; choose one of: {names}."
                )
            return skill.name
        if key == "script":
            return parse_script(rest)
        if key in ("daily", "quiz"):
            current = await self._repo.get(turn.incoming.chat_key)
            now = current.daily if key == "daily" else (current.quiz or current.daily)
            parsed = parse_daily(rest, now.zone if now else None)
            return Daily(*parsed) if parsed else None
        if key == "books":
            return parse_books(rest)
        if key == "model":
            return parse_model(rest, self.models)
        return parse_switch(rest, "digest")

    async def _tell(self, change: SettingChange, incoming: Incoming) -> str | None:
        lines = []
        for listener in self._listeners:
            try:
                line = await listener.settings_changed(change, incoming)
            except Exception:
                log.exception("settings_listener_failed", field=change.field)
                continue
            if line:
                lines.append(line)
        return "\n".join(lines) or None

    def _changed_line(self, change: SettingChange) -> str:
        label, new = _LABELS[change.field], self._shown(change.settings, change.field)
        if not change.changed:
            return f"{label} 本来就是 {new}。{label} is already {new}."
        return f"好，{label} 已改为 {new}。{label} is now {new}."

    def _shown(self, settings: ChatSettings, field: SettingField) -> str:
        if field == "skill":
            return self._skills.get(settings.skill).display
        if field == "model" and self.models is not None:
            model = self.models.pick(settings.model)
            return f"{model}（默认 default）" if model == self.models.default else model
        return settings.shown(field)

    def _fields(self, incoming: Incoming) -> tuple[SettingField, ...]:
        """The settings this chat shows: the digest in groups, the model when there is one to pick."""
        offered = self.models is not None and self.models.choosable
        return tuple(f for f in _fields(incoming) if f != "model" or offered)

    def _known(self, incoming: Incoming) -> tuple[SettingField, ...]:
        """The setting names the command takes (`model` only when FUZI_LLM_MODELS offers a choice)."""
        offered = self.models is not None and self.models.choosable
        return tuple(f for f in SETTING_FIELDS if f != "model" or offered)

    def _usage(self) -> str:
        offered = self.models is not None and self.models.choosable
        return f"{USAGE} · {MODEL_USAGE}" if offered else USAGE

    def _extra(self, settings: ChatSettings, incoming: Incoming, can_change: bool) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.models is not None and self.models.choosable:
            extra = {"model": self.models.pick(settings.model), "models": list(self.models.names)}
        return extra | {
            "settings": {f: settings.shown(f) for f in self._fields(incoming)},
            "skill": self._skills.get(settings.skill).name,
            "skills": self._skills.choices(),
            "can_change": can_change,
        }


def _fields(incoming: Incoming) -> tuple[SettingField, ...]:
    return SETTING_FIELDS if incoming.is_group else tuple(f for f in SETTING_FIELDS if f not in _GROUPS_ONLY)


_GROUPS_ONLY = ("digest", "quiz")


def _refusal(text: str, why: str) -> CommandResult:
    return CommandResult(text, extra={"refused": why})
