"""What Fuzi says instead of an answer, one module per language (zh.py, en.py), chosen here.

`say(name, lang, **fields)` formats one text in one language; `lang=None` (nothing to tell the
language by, e.g. an empty message or a command) gives both, Chinese first.
"""

from __future__ import annotations

import math
from types import ModuleType

from core.language import Language
from core.texts import en, zh

_BY_LANG: dict[Language, ModuleType] = {"zh": zh, "en": en}


def say(name: str, lang: Language | None, **fields: object) -> str:
    """The text `name` in `lang` (both languages when None), placeholders filled from `fields`."""
    if lang is None:
        return f"{say(name, 'zh', **fields)} {say(name, 'en', **fields)}"
    return getattr(_BY_LANG[lang], name).format(**fields)


def limit_refusal(reason: str, retry_after_s: float, lang: Language) -> str:
    """The reply for a rate-limit or budget refusal, saying when to ask again."""
    module = _BY_LANG[lang]
    lead = module.LIMIT_LEAD.get(reason, module.LIMIT_LEAD_OTHER)
    return module.LIMIT.format(lead=lead, when=wait_phrase(retry_after_s, lang))


def wait_phrase(seconds: float, lang: Language) -> str:
    """Human wait time, rounded up: "42 秒" / "3 分钟" / "2 小时 5 分", or the English equivalent."""
    module = _BY_LANG[lang]
    s = max(1, math.ceil(seconds))
    if s < 90:
        return _plural(module.SECONDS.format(n=s), s, lang)
    m = math.ceil(s / 60)
    if m < 60:
        return _plural(module.MINUTES.format(n=m), m, lang)
    h, rest = divmod(m, 60)
    return module.HOURS_MINUTES.format(h=h, m=rest) if rest else module.HOURS.format(h=h)


def _plural(text: str, n: int, lang: Language) -> str:
    return text[:-1] if lang == "en" and n == 1 and text.endswith("s") else text
