"""Prompt-injection detector for Chinese and English user text.

Phrase rules live in core/guards/patterns.py, proximity rules (word families near each other) in
core/guards/proximity.py; this module normalises the text (core/guards/normalize.py) and runs every
rule against the view it was written for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.guards.normalize import Views, views
from core.guards.patterns import EN_RULES, ZH_RULES, Rule
from core.guards.phrasing import PHRASING_RULES
from core.guards.proximity import PROXIMITY_RULES

ALL_RULES: tuple[Rule, ...] = EN_RULES + ZH_RULES + PROXIMITY_RULES + PHRASING_RULES
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Detection:
    """Result of `InjectionDetector.detect`.

    Attributes:
        flagged: True when some rule matched.
        style: the matching rule's style ("goal_hijack", "role_reassign", "prompt_extract",
            "jailbreak"), None when not flagged.
        rule: the matching rule's name, for logs and evaluation.
    """

    flagged: bool
    style: str | None = None
    rule: str | None = None


class InjectionDetector:
    """Flags messages that try to hijack the goal, reassign the role or extract the prompt.

    Args:
        rules: the rules to run; defaults to every rule in core/guards/patterns.py.
    """

    def __init__(self, rules: tuple[Rule, ...] = ALL_RULES) -> None:
        self._rules = rules

    def detect(self, text: str) -> Detection:
        """Return the first matching rule's verdict for `text`."""
        v = views(text)
        for rule in self._applicable(v):
            if rule.pattern.search(getattr(v, rule.view)):
                return Detection(True, rule.style, rule.name)
        return Detection(False)

    def matches(self, text: str) -> list[str]:
        """Names of every rule that matches (for evaluation and debugging)."""
        v = views(text)
        return [r.name for r in self._applicable(v) if r.pattern.search(getattr(v, r.view))]

    def _applicable(self, v: Views) -> tuple[Rule, ...] | list[Rule]:
        """Compact-view rules are for Chinese and mixed text: skip them when there is no Chinese, so
        the English words they also list cannot match across English word boundaries."""
        if _CJK.search(v.compact):
            return self._rules
        return [r for r in self._rules if r.view != "compact"]
