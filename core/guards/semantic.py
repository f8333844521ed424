"""The semantic injection feature, combined with the n-gram classifier's score: a
logistic regression over the sentence embedding of a message (multilingual-e5-small query vectors,
the retrieval embedder's); `SemanticScreen` takes any unit → probability function (the evaluation
scripts score candidate models through it; docs/guards.md).

The guard does not build an embedder: the caller passes a function text → vector (bot/ builds it);
without one the detector is the n-gram detector alone. Scoring needs numpy and the JSON the lab's
training writes (`python -m evals guard-train --semantic`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import get_args

import numpy as np

from core.guards.windows import windows
from core.language import Language

SEMANTIC_BUNDLED = Path(__file__).with_name("semantic_model.json")
# Longer messages are left to the n-gram detector: the engine costs ~1 ms per token on one core
# (a 500-character Chinese message took 0.6 s); no held-out message is longer.
MAX_EMBED_CHARS = 300

# text → L2-normalised query vector of the model the weights were trained on.
EmbedFn = Callable[[str], np.ndarray]


def logistic(vector: np.ndarray, weights: np.ndarray, intercept: float) -> float:
    """The logistic regression's probability for one vector."""
    return float(1.0 / (1.0 + np.exp(-(float(vector @ weights) + intercept))))


class SemanticModelError(ValueError):
    """The semantic model file is missing, unreadable or not a model of the expected shape."""


def embedded_units(text: str) -> list[str]:
    """What the detector embeds: the message, and its last window when it has more than one sentence
    (a hijack after a benign prefix is where the message's vector is diluted)."""
    tail = windows(text)[:1]
    return [text, *tail]


class SemanticClassifier:
    """Scores how much a message's meaning looks like the attacks it was trained on.

    Args:
        model: the parsed JSON (``weights``, ``intercept``, ``thresholds`` per language, ``dim``,
            ``embedder``).

    Raises:
        SemanticModelError: the model lacks a field or its weights do not match ``dim``.
    """

    def __init__(self, model: dict) -> None:
        try:
            self.weights = np.asarray(model["weights"], dtype=np.float64)
            self.intercept = float(model["intercept"])
            self.thresholds = {lang: float(model["thresholds"][lang]) for lang in get_args(Language)}
            self.dim = int(model["dim"])
            self.embedder = str(model["embedder"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SemanticModelError(f"not a semantic model: {exc!r}") from exc
        if self.weights.shape != (self.dim,):
            raise SemanticModelError(f"weights have shape {self.weights.shape}, expected ({self.dim},)")

    @classmethod
    def load(cls, path: Path = SEMANTIC_BUNDLED) -> SemanticClassifier:
        """Read a model file (the bundled one by default); cached per path.

        Raises:
            SemanticModelError: missing, not JSON, or not a model.
        """
        return _load(str(path))

    def probability(self, vector: np.ndarray) -> float:
        """Probability that the embedded text is an injection attempt."""
        vector = np.asarray(vector, dtype=np.float64).reshape(-1)
        if vector.shape != (self.dim,):
            raise SemanticModelError(f"vector of {vector.shape[0]} dims, the model wants {self.dim}")
        return logistic(vector, self.weights, self.intercept)


@lru_cache(maxsize=4)
def _load(path: str) -> SemanticClassifier:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SemanticModelError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise SemanticModelError(f"{path} is not a JSON object")
    return SemanticClassifier(data)


UnitFn = Callable[[str], float]  # one unit of a message → its probability of being an injection


class SemanticScreen:
    """The semantic feature as the detector uses it: a probability per embedded unit (the message and
    its last window) and the thresholds of its mean with the n-gram score, per language.

    Args:
        probability: unit → probability (the bundled regression over the query vector: `regression`).
        thresholds: "zh" and "en".
    """

    def __init__(self, probability: UnitFn, thresholds: Mapping[str, float]) -> None:
        self._probability = probability
        self.thresholds = {lang: float(thresholds[lang]) for lang in get_args(Language)}

    @classmethod
    def regression(cls, model: SemanticClassifier, embed: EmbedFn) -> SemanticScreen:
        """The regression `model` over `embed`'s query vectors (the embedder bot/ built; its
        cache is reused by the retrieval of the same text)."""
        return cls(lambda unit: model.probability(embed(unit)), model.thresholds)

    def score(self, text: str) -> float | None:
        """The highest probability of the message's embedded units; None when the text cannot be
        embedded (longer than MAX_EMBED_CHARS, no letter or digit, or the embedder failed): the
        n-gram classifier then decides alone."""
        if len(text) > MAX_EMBED_CHARS:
            return None
        try:
            return max(self._probability(unit) for unit in embedded_units(text))
        except Exception:  # noqa: BLE001 - an embedder failure must not refuse or crash a message
            return None

    def combined(self, text: str, ngram_score: float) -> float | None:
        """The mean of the n-gram score and the semantic score; None without a semantic score."""
        semantic = self.score(text)
        return None if semantic is None else (ngram_score + semantic) / 2

    def threshold(self, language: Language) -> float:
        return self.thresholds[language]
