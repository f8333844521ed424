"""Parsing and checking `/settings` values: one parser for every platform.

Accepted daily times (decided here, documented in docs/telegram.md, tested in tests/test_settings_values.py):

* 24-hour `H:MM` / `HH:MM` (`8:00`, `08:00`, `20:30`; a full-width colon `8：00` too), 00:00–23:59;
* 12-hour with am/pm: `8:00 pm`, `8pm`, `8:30am`, `12am` (midnight), `12pm` (noon); hours 1–12;
* Chinese: `8点`, `8点半`, `8点30`, `8点30分`, `20点`, with an optional 早上/上午/中午/下午/晚上
  (`晚上8点` = 20:00); 時 works like 点.

Refused with one line: `25:00`, `24:00`, `8:60`, a bare `8`, `13pm`, anything else. The zone is an
IANA name (`Asia/Taipei`, any case), or `UTC`; without one the chat keeps its zone, or gets
`DEFAULT_ZONE` (Asia/Shanghai). Offsets like `UTC+8` are refused (they ignore daylight saving).
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import time
from functools import lru_cache

from core.books import BOOKS, books_in
from core.language import Script
from core.llm.choice import ModelChoice, valid_model
from core.storage.chat_settings import DEFAULT_ZONE


class BadValue(ValueError):
    """A value the command refuses; `str(exc)` is the one-line reply (Chinese, then English)."""


_HM = re.compile(r"^(\d{1,2})[:：](\d{2})$")
_AMPM = re.compile(r"^(\d{1,2})(?:[:：](\d{2}))?\s*([ap])\.?m\.?$", re.IGNORECASE)
_CN = re.compile(r"^(早上|早晨|上午|中午|下午|晚上)?(\d{1,2})[点點时時](?:(半)|(\d{1,2})分?)?$")
_PM_WORDS = ("下午", "晚上")
TIME_HELP = "时间写作 08:00、8:00 pm 或 晚上8点 · write the time as 08:00, 8:00 pm or 晚上8点"


def parse_time(text: str) -> time:
    """A local time of day from the forms listed in the module doc; BadValue otherwise."""
    t = text.strip()
    if m := _HM.match(t):
        return _checked(int(m[1]), int(m[2]), t)
    if m := _AMPM.match(t):
        return _twelve(int(m[1]), int(m[2] or 0), m[3].lower() == "p", t)
    if m := _CN.match(t):
        hour, minute = int(m[2]), 30 if m[3] else int(m[4] or 0)
        if m[1] in _PM_WORDS and 1 <= hour <= 11:
            hour += 12
        if m[1] == "中午" and hour < 3:  # 中午1点 is 13:00; 中午12点 is noon
            hour += 12
        return _checked(hour, minute, t)
    raise BadValue(f"看不懂时间「{_short(t)}」。{TIME_HELP}")


def _twelve(hour: int, minute: int, pm: bool, raw: str) -> time:
    if not 1 <= hour <= 12:
        raise BadValue(f"「{_short(raw)}」不是 12 小时制的时间（1–12）。{TIME_HELP}")
    return _checked(hour % 12 + (12 if pm else 0), minute, raw)


def _checked(hour: int, minute: int, raw: str) -> time:
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise BadValue(f"没有「{_short(raw)}」这个时刻（00:00–23:59）。{TIME_HELP}")
    return time(hour, minute)


@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    """Every IANA zone name by its lower-case form (UTC included)."""
    names = {name.lower(): name for name in zoneinfo.available_timezones()}
    names["utc"] = "UTC"
    return names


def parse_zone(text: str) -> str:
    """The canonical IANA name for `text` (any case); BadValue for an unknown one or an offset."""
    t = text.strip()
    name = _zones().get(t.lower())
    if name is None or name.lower() in ("localtime", "factory"):
        raise BadValue(
            f"不认得时区「{_short(t)}」：请用 Area/City，如 Asia/Shanghai、Asia/Taipei、Europe/London，或 UTC。"
            " · Unknown time zone; use Area/City (e.g. Asia/Taipei) or UTC."
        )
    return name


_SCRIPTS: dict[str, Script | None] = {
    "simplified": "simplified",
    "simple": "simplified",
    "简": "simplified",
    "简体": "simplified",
    "簡體": "simplified",
    "zh-hans": "simplified",
    "traditional": "traditional",
    "trad": "traditional",
    "繁": "traditional",
    "繁体": "traditional",
    "繁體": "traditional",
    "zh-hant": "traditional",
    "auto": None,
    "自动": None,
    "自動": None,
}


def parse_script(text: str) -> Script | None:
    """`simplified`, `traditional` (or 简体/繁體 …), `auto` (None: follow each person's script)."""
    key = text.strip().lower()
    if key not in _SCRIPTS:
        raise BadValue(
            f"字体只有 simplified（简体）、traditional（繁體）或 auto，没有「{_short(text)}」。"
            " · Script is simplified, traditional or auto."
        )
    return _SCRIPTS[key]


_SWITCH = {"on": True, "off": False, "开": True, "開": True, "关": False, "關": False, "true": True, "false": False}


def parse_switch(text: str, what: str) -> bool:
    """`on`/`off` (开/关); BadValue otherwise."""
    key = text.strip().lower()
    if key not in _SWITCH:
        raise BadValue(f"{what} 只能是 on 或 off（开/关），没有「{_short(text)}」。 · {what} is on or off.")
    return _SWITCH[key]


OFF_WORDS = frozenset({"off", "关", "關", "none", "stop"})


def parse_books(text: str) -> tuple[str, ...] | None:
    """`lunyu,mengzi` (ids or titles: 论语,孟子; commas, spaces or 、), `sishu`, or `all` (None: every
    book) → the book ids in registry order; BadValue for a book Fuzi does not have."""
    words = [w for w in re.split(r"[,，、\s]+", text.strip().lower()) if w]
    if not words or words == ["all"] or words == ["全部"]:
        return None
    names = {b.id: b.id for b in BOOKS} | {b.name: b.id for b in BOOKS} | {"sishu": "sishu", "四书": "sishu"}
    unknown = [w for w in words if w not in names]
    choices = "、".join(f"{b.id}（{b.name}）" for b in BOOKS)
    if unknown:
        raise BadValue(
            f"没有「{_short(unknown[0])}」这部书。可选：{choices}、sishu 或 all。 · Books: "
            f"{', '.join(b.id for b in BOOKS)}, sishu or all."
        )
    chosen = {i for w in words for i in books_in(names[w])}
    return None if len(chosen) == len(BOOKS) else tuple(b.id for b in BOOKS if b.id in chosen)


def parse_daily(args: str, current_zone: str | None) -> tuple[time, str] | None:
    """`HH:MM [Area/City]` → (time, zone); `off` → None. The zone defaults to the chat's current one."""
    words = args.split()
    if not words:
        raise BadValue(f"请写时间，或 off。{TIME_HELP}")
    if len(words) == 1 and words[0].lower() in OFF_WORDS:
        return None
    fallback = current_zone or DEFAULT_ZONE
    if len(words) == 1:
        return parse_time(words[0]), fallback
    try:  # "8:00 pm": all of it is the time
        return parse_time(" ".join(words)), fallback
    except BadValue:
        zone = parse_zone(words[-1])  # "8:00 Asia/Taipei"; an unknown zone is refused as such
    return parse_time(" ".join(words[:-1])), zone


def _short(text: str, limit: int = 24) -> str:
    """A user's value echoed in a refusal: one line, clipped."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def parse_model(text: str, models: ModelChoice | None) -> str | None:
    """`/settings model NAME`: one of the allowed models, or None for `default`; BadValue (one line,
    naming the choices) for a malformed name (spaces, other scripts, over 100 characters) or one the
    operator does not allow."""
    name = text.strip()
    if models is None or not models.choosable:
        raise BadValue(
            "此处只有一个模型。Only one model is offered here (the operator lists others in FUZI_LLM_MODELS)."
        )
    choices = ", ".join(models.names)
    if name.lower() in ("default", "默认"):
        return None
    if not valid_model(name):
        raise BadValue(f"「{_short(name)}」不是模型名。Not a model name; choose one of: {choices}.")
    if not models.is_allowed(name):
        raise BadValue(f"没有「{_short(name)}」这个模型。Unknown model; choose one of: {choices}.")
    return name
