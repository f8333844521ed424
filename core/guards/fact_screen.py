"""`FactScreen`: what may be stored as a remembered fact (memory is data, never instructions).

A fact goes into the system message of every later conversation, so it is checked where it is
stored (`FactStore.add`, core/memory/facts.py), which both `/remember` and the agent's ``remember``
tool go through:

- the injection *rules* on the fact as written;
- the whole detector (rules and classifier) on everything the fact decodes to — base64, hex,
  URL-encoding, letters split by separators (core/guards/decode.py) — since an ordinary fact has
  no reason to hide an instruction;
- spaced pinyin that spells an injection's core words.

The learned classifier is *not* run on the plain fact: it was trained on chat messages, and short
personal statements ("我的生日是五月五日", "I'm 58 and recently retired.") are exactly where its
false positives fall (docs/guards.md); ordinary facts must never be refused.
"""

from __future__ import annotations

import structlog

from core.guards.decode import decodings, pinyin_instruction
from core.guards.injection import ALL_RULES, InjectionDetector

log = structlog.get_logger(__name__)


class FactScreen:
    """Refuses facts that are, or decode to, instructions.

    Args:
        detector: the full detector for decoded text (defaults to rules + bundled classifier).
        rules: the rules-only detector for the fact as written (defaults to every rule).
    """

    def __init__(self, detector: InjectionDetector | None = None, rules: InjectionDetector | None = None) -> None:
        self._detector = detector or InjectionDetector()
        self._rules = rules or InjectionDetector(ALL_RULES, classifier=None)

    def __call__(self, text: str) -> str | None:
        """None when `text` may be stored, else the reason: "injection" or "encoded_injection"."""
        found = self._rules.detect(text)
        if found.flagged:
            log.warning("fact_refused", reason="injection", rule=found.rule)
            return "injection"
        if pinyin_instruction(text):
            log.warning("fact_refused", reason="encoded_injection", rule="pinyin")
            return "encoded_injection"
        for plain in decodings(text):
            found = self._detector.detect(plain)
            if found.flagged or pinyin_instruction(plain):
                log.warning("fact_refused", reason="encoded_injection", rule=found.rule or "pinyin")
                return "encoded_injection"
        return None
