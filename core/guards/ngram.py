"""A small learned injection classifier: logistic regression over TF-IDF n-grams.

Word 1–2-grams of the normalised ``words`` view and character 2–4-grams of the ``compact`` view
(core/guards/normalize.py), each block TF-IDF weighted (sublinear tf) and L2-normalised, as
scikit-learn's `TfidfVectorizer` does; a logistic regression on top. Scoring needs only the JSON
the training step writes (`python -m evals guard-train`), no scikit-learn, and takes well under a millisecond.

The decision thresholds are stored with the weights, one per language (``thresholds``: "zh" for
text with Chinese characters, "en" for the rest): chosen on out-of-fold scores of the benign
training messages, each scored the way the detector decides (the highest of the message and its
sentence windows), for a target false-positive rate per language (evals/guard/ngram_train.py).
Models without ``thresholds`` use their single ``threshold`` for every language.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import get_args

from core.guards.normalize import Views, views
from core.language import Language
from core.language.text import threshold_language

BUNDLED = Path(__file__).with_name("ngram_model.json")
_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # scikit-learn's default token_pattern


@dataclass(frozen=True)
class _Block:
    """One TF-IDF block: n-gram → [idf, weight], the model file's lists as parsed (23,000 of them:
    no copy at start)."""

    terms: dict[str, list[float]]

    def score(self, grams: list[str]) -> float:
        """Dot product of the L2-normalised sublinear TF-IDF vector with the block's weights."""
        counts = Counter(g for g in grams if g in self.terms)
        if not counts:
            return 0.0
        values = {g: (1.0 + math.log(c)) * self.terms[g][0] for g, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in values.values()))
        return sum(v * self.terms[g][1] for g, v in values.items()) / norm

    def contributions(self, grams: list[str]) -> dict[str, float]:
        """Each known n-gram's share of `score` (they sum to it)."""
        counts = Counter(g for g in grams if g in self.terms)
        values = {g: (1.0 + math.log(c)) * self.terms[g][0] for g, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in values.values())) or 1.0
        return {g: v * self.terms[g][1] / norm for g, v in values.items()}


def word_grams(v: Views) -> list[str]:
    """Word unigrams and bigrams of the ``words`` view."""
    tokens = _TOKEN.findall(v.words.lower())
    return tokens + [f"{a} {b}" for a, b in zip(tokens, tokens[1:])]


def char_grams(v: Views) -> list[str]:
    """Character 2-, 3- and 4-grams of the ``compact`` view."""
    text = v.compact.lower()
    return [text[i : i + n] for n in (2, 3, 4) for i in range(len(text) - n + 1)]


class NgramClassifier:
    """Scores how much a message looks like the attacks it was trained on.

    Args:
        model: the parsed JSON written by `python -m evals guard-train` (``word``, ``char``, ``intercept``,
            ``threshold``, optionally ``thresholds`` per language).
    """

    def __init__(self, model: dict) -> None:
        self._word = _Block(model["word"])
        self._char = _Block(model["char"])
        self._intercept = float(model["intercept"])
        self.threshold = float(model["threshold"])
        per_language = model.get("thresholds") or {}
        self.thresholds = {lang: float(per_language.get(lang, self.threshold)) for lang in get_args(Language)}

    @classmethod
    def load(cls, path: Path = BUNDLED) -> NgramClassifier:
        """Read a model file (the bundled one by default); cached per path."""
        return _load(str(path))

    def probability(self, text: str) -> float:
        """Probability that `text` is an injection attempt."""
        return self.probability_of(views(text))

    def probability_of(self, v: Views) -> float:
        """`probability` for already normalised views."""
        z = self._intercept + self._word.score(word_grams(v)) + self._char.score(char_grams(v))
        return 1.0 / (1.0 + math.exp(-z))

    def top_features(self, v: Views, k: int = 3) -> list[tuple[str, float]]:
        """The `k` n-grams that push the score up most, with their share of the logit: what to look
        at when the classifier flags a benign message."""
        found = {**self._word.contributions(word_grams(v)), **self._char.contributions(char_grams(v))}
        return sorted(((g, round(c, 3)) for g, c in found.items() if c > 0), key=lambda x: -x[1])[:k]

    def threshold_for(self, v: Views) -> float:
        """The threshold of the message's language: "zh" when it has Chinese characters, else "en"."""
        return self.thresholds[threshold_language(v.compact)]

    def flags(self, v: Views) -> bool:
        """True when the probability is above the threshold of the text's language."""
        return self.probability_of(v) > self.threshold_for(v)


@lru_cache(maxsize=4)
def _load(path: str) -> NgramClassifier:
    return NgramClassifier(json.loads(Path(path).read_text(encoding="utf-8")))
