"""The injection rules that need a Latin letter: a message whose view has none cannot match them.

Every match of each rule named in `LATIN_RULES` consumes at least one character of `LATIN` (an
ASCII letter, or one of the four characters that match an ASCII letter case-insensitively), so the
detector skips the rule, uncompiled, when the text of the rule's view holds none of them: a Chinese
message does not compile the English rules (0.1 s of a start). `needs_latin` proves it from the
parsed pattern; tests/test_guard_injection.py checks that `LATIN_RULES` is exactly the rules it proves.
"""

from __future__ import annotations

import re
from typing import Any

LATIN = re.compile("[A-Za-z\u0130\u0131\u017f\u212a]")
"""Every character that `[a-z]` matches case-insensitively (İ ı ſ K besides the ASCII letters)."""

LATIN_RULES = frozenset(
    {
        "en_ignore_previous", "en_ignore_your", "en_ignore_everything", "en_void_previous",
        "en_new_instructions", "en_new_instructions_colon", "en_instead", "en_you_are_now",
        "en_from_now_on", "en_act_as", "en_pretend", "en_simulate", "en_stop_being",
        "en_show_secret", "en_show_your", "en_show_above", "en_verbatim", "en_what_told", "en_dan",
        "en_dan_words", "en_mode", "en_jailbreak", "en_no_limits", "en_fake_system",
        "px_en_discard_instructions", "px_en_reveal_instructions", "px_en_rules_you_follow",
        "px_en_hidden_context", "px_en_how_configured", "px_en_session_role", "px_en_become",
        "px_en_persona_switch", "px_en_play_role", "px_en_no_limits", "px_en_want_you_to",
        "px_en_markdown_system", "px_en_modes", "px_mixed_role", "ph_en_authority", "ph_en_void",
        "ph_en_embedded", "ph_en_transcript", "ph_en_persona", "ph_en_extract", "ph_en_jailbreak",
        "sc_en_task_swap", "sc_en_new_job", "sc_en_unbound_persona",
    }
)  # fmt: skip

_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def needs_latin(source: str, flags: int = 0) -> bool:
    """True when every match of the pattern consumes a character of `LATIN` (conservative: False
    when unsure). Parses the pattern: for tests and for checking a new rule, not for a start."""
    from re import _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(source, flags)
    return _sequence(parsed.data)


def _sequence(items: Any) -> bool:
    return any(_element(op, av) for op, av in items)


def _element(op: Any, av: Any) -> bool:
    """True when every match of one parsed element consumes a character of `LATIN`. A literal or a
    class of ASCII letters does, case-insensitively too (what it then matches is within `LATIN`);
    a branch when each alternative does; a repeat of at least one; a group when its body does.
    Anything else (a look-around, an anchor, any other class) is taken not to."""
    from re import _constants as c  # type: ignore[attr-defined]

    if op is c.LITERAL:
        return chr(av) in _ASCII_LETTERS
    if op is c.IN:
        return all(_ascii_item(o, a, c) for o, a in av)
    if op is c.BRANCH:
        return all(_sequence(alternative) for alternative in av[1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        low, _high, body = av
        return low >= 1 and _sequence(body)
    if op is c.SUBPATTERN:
        return _sequence(av[3])
    if op is c.ATOMIC_GROUP:
        return _sequence(av)
    return False


def _ascii_item(op: Any, av: Any, c: Any) -> bool:
    if op is c.LITERAL:
        return chr(av) in _ASCII_LETTERS
    if op is c.RANGE:
        low, high = av
        return ord("a") <= low <= high <= ord("z") or ord("A") <= low <= high <= ord("Z")
    return False  # NEGATE, a category, anything else
