"""Prompt-injection detector for Chinese and English user text.

Phrase rules live in core/guards/patterns.py, proximity rules (word families near each other) in
core/guards/proximity.py, more phrasings in core/guards/phrasing.py, and a learned n-gram classifier
in core/guards/ngram.py; this module normalises the text (core/guards/normalize.py), runs every rule
against the view it was written for, then the classifier.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.guards.classical import (
    ROLEPLAY_RULES,
    SUPPOSE_RULES,
    counterfactual_question,
    in_world_role,
    without_classical_quotes,
)
from core.guards.latin import LATIN, LATIN_RULES
from core.guards.ngram import BUNDLED, NgramClassifier
from core.guards.normalize import Views, views
from core.guards.patterns import EN_RULES, Rule
from core.guards.patterns_zh import ZH_RULES
from core.guards.phrasing import PHRASING_RULES
from core.guards.proximity import PROXIMITY_RULES
from core.guards.scope import SCOPE_RULES
from core.guards.semantic import SemanticScreen
from core.guards.windows import windows
from core.language.text import has_cjk, threshold_language

ALL_RULES: tuple[Rule, ...] = EN_RULES + ZH_RULES + PROXIMITY_RULES + PHRASING_RULES + SCOPE_RULES


@dataclass(frozen=True)
class Detection:
    """Result of `InjectionDetector.detect`.

    Attributes:
        flagged: True when some rule matched.
        style: the matching rule's style ("goal_hijack", "role_reassign", "prompt_extract",
            "jailbreak"), None when not flagged.
        rule: the matching rule's name, for logs and evaluation.
        score: the classifier's probability (the highest of the whole message and its windows)
            when the classifier ran; None after a rule hit or without a classifier.
    """

    flagged: bool
    style: str | None = None
    rule: str | None = None
    score: float | None = None


class InjectionDetector:
    """Flags messages that try to hijack the goal, reassign the role or extract the prompt.

    Rules first (named, with a style); then, if none matched, the learned n-gram classifier on the
    whole message and on windows of its last sentences (`windows`).

    Args:
        rules: the rules to run; defaults to every rule (phrases, proximity, phrasing).
        classifier: the n-gram classifier; "bundled" loads core/guards/ngram_model.json when it
            exists, None runs the rules alone.
    """

    def __init__(
        self,
        rules: tuple[Rule, ...] = ALL_RULES,
        classifier: NgramClassifier | str | None = "bundled",
        semantic: SemanticScreen | None = None,
    ) -> None:
        self._rules = rules
        if classifier == "bundled":
            classifier = NgramClassifier.load() if BUNDLED.exists() else None
        self._classifier = classifier if isinstance(classifier, NgramClassifier) else None
        self._semantic = semantic if self._classifier is not None else None

    @property
    def semantic(self) -> SemanticScreen | None:
        """The semantic feature, None when the n-gram classifier decides alone."""
        return self._semantic

    @property
    def classifier(self) -> NgramClassifier | None:
        """The n-gram classifier, None when the rules run alone."""
        return self._classifier

    def detect(self, text: str) -> Detection:
        """The first matching rule's verdict for `text`, else the classifier's."""
        v = views(text)
        for rule in self._hits(text, v):
            return Detection(True, rule.style, rule.name)
        found = self.learned(text, v)
        return Detection(False) if found is None else found

    def learned(self, text: str, v: Views | None = None) -> Detection | None:
        """The learned layers' verdict alone (the n-gram classifier, with the semantic feature when
        there is one), as if no rule had matched; None without a classifier. The second opinion asks
        it of a rule hit: a rule the learned layers disagree with is one an LLM may review."""
        if self._classifier is None:
            return None
        v = views(text) if v is None else v
        # One threshold per message, chosen by the language of the whole message: the trainer
        # calibrated it on the highest of a message's and its windows' scores.
        if self._semantic is not None:
            found = self._with_semantic(text, v)
            if found is not None:
                return found
        threshold = self._classifier.threshold_for(v)
        score = self._classifier.probability_of(v)
        if score > threshold:
            return Detection(True, "learned", "ngram_classifier", score)
        best = max((self._classifier.probability_of(views(w)) for w in windows(text)), default=0.0)
        if best > threshold:
            return Detection(True, "learned", "ngram_window", best)
        return Detection(False, score=max(score, best))

    def _with_semantic(self, text: str, v: Views) -> Detection | None:
        """The mean of the n-gram score (the highest of the message and its windows) and the
        semantic score, against the threshold of the message's language; None when the message
        cannot be embedded (the n-gram classifier then decides alone)."""
        assert self._classifier is not None and self._semantic is not None
        ngram = max(self._classifier.probability_of(x) for x in [v, *(views(w) for w in windows(text))])
        combined = self._semantic.combined(text, ngram)
        if combined is None:
            return None
        if combined > self._semantic.threshold(threshold_language(v.compact)):
            return Detection(True, "learned", "semantic", combined)
        return Detection(False, score=combined)

    def matches(self, text: str) -> list[str]:
        """Names of every rule that matches, plus "ngram_classifier" when it flags (for evaluation)."""
        v = views(text)
        names = [r.name for r in self._hits(text, v)]
        if self._classifier is not None and self._classifier.flags(v):
            names.append("ngram_classifier")
        if self._classifier is not None:
            threshold = self._classifier.threshold_for(v)
            if any(self._classifier.probability_of(views(w)) > threshold for w in windows(text)):
                names.append("ngram_window")
        if self._semantic is not None and self._classifier is not None:
            found = self._with_semantic(text, v)
            if found is not None and found.flagged:
                names.append("semantic")
        return names

    def _hits(self, text: str, v: Views) -> Iterator[Rule]:
        """The rules that match, in order. Proximity rules do not read the quoted speech of classical
        speakers, the generic role-play rules do not count for a role inside Fuzi's world, nor the
        "suppose you are" rule for a counterfactual question (core/guards/classical.py)."""
        masked = without_classical_quotes(text)
        quoted = views(masked) if masked is not None else v
        in_world = in_world_role(text)
        counterfactual = counterfactual_question(text)
        latin: dict[str, bool] = {}  # a view's text → whether it holds a Latin letter
        for rule in self._applicable(v):
            if (in_world and rule.name in ROLEPLAY_RULES) or (counterfactual and rule.name in SUPPOSE_RULES):
                continue
            view = quoted if rule.name.startswith("px_") else v
            target = getattr(view, rule.view)
            if rule.name in LATIN_RULES:  # no Latin letter, no match: the rule is not even compiled
                if target not in latin:
                    latin[target] = LATIN.search(target) is not None
                if not latin[target]:
                    continue
            if rule.pattern.search(target):
                yield rule

    def _applicable(self, v: Views) -> tuple[Rule, ...] | list[Rule]:
        """Compact-view rules are for Chinese and mixed text: skip them when there is no Chinese, so
        the English words they also list cannot match across English word boundaries."""
        if has_cjk(v.compact):
            return self._rules
        return [r for r in self._rules if r.view != "compact"]
