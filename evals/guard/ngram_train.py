"""Training for `NgramClassifier` (`python -m evals guard-train`); needs scikit-learn, scoring does not.

The feature extraction is the scorer's own (`word_grams`, `char_grams`), passed to scikit-learn as
analyzers, so the exported weights mean exactly what the scorer computes.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from core.guards.evaluation import Example
from core.guards.ngram import char_grams, word_grams
from core.guards.normalize import views
from core.guards.windows import windows
from core.language.text import has_cjk

# Target false-positive rate per language, on benign messages the classifier has not seen (issue 24:
# ≤ 0.5 % on benign Chinese, ≤ 1 % on English).
FALSE_POSITIVE_TARGETS = {"zh": 0.005, "en": 0.01}


def _words(text: str) -> list[str]:
    return word_grams(views(text))


def _chars(text: str) -> list[str]:
    return char_grams(views(text))


def language(text: str) -> str:
    """ "zh" for text with Chinese characters, else "en" (the scorer's `threshold_for`)."""
    return "zh" if has_cjk(text) else "en"


def with_benign_windows(examples: list[Example]) -> list[Example]:
    """`examples` plus the sentence windows of every benign one, labelled benign.

    The detector also scores windows of a message (core/guards/injection.py), so the classifier
    must have seen benign sentences on their own; windows of attacks are not added (their benign
    sentences would be labelled attacks).
    """
    return [ex for ex, _ in grouped(examples)]


def grouped(examples: list[Example]) -> list[tuple[Example, int]]:
    """`with_benign_windows`, each line paired with the index of the message it came from, so that a
    message and its windows stay in one cross-validation fold and its score can be taken as the
    detector takes it (the highest of the message and its windows)."""
    pairs = [(ex, i) for i, ex in enumerate(examples)]
    pairs += [(Example(w, False), i) for i, ex in enumerate(examples) if not ex.attack for w in windows(ex.text)]
    return pairs


def thresholds(
    examples: list[Example], groups: list[int], oof: Any, targets: dict[str, float] = FALSE_POSITIVE_TARGETS
) -> dict[str, float]:
    """Per language, the out-of-fold score that a share `targets[lang]` of the benign messages
    exceeds, each message scored as the detector scores it: the highest of the message and its
    windows (`grouped` lists every message before the windows, so a group's first line is it)."""
    import numpy as np

    best: dict[int, float] = {}
    lang: dict[int, str] = {}
    for ex, group, score in zip(examples, groups, oof):
        if not ex.attack:
            best[group] = max(best.get(group, 0.0), float(score))
            lang.setdefault(group, language(ex.text))
    by_language: dict[str, list[float]] = defaultdict(list)
    for group, score in best.items():
        by_language[lang[group]].append(score)
    return {name: float(np.quantile(scores, 1 - targets[name])) for name, scores in sorted(by_language.items())}


def _pipeline(c: float, max_words: int, max_chars: int) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    features = make_union(
        TfidfVectorizer(analyzer=_words, min_df=2, sublinear_tf=True, max_features=max_words),
        TfidfVectorizer(analyzer=_chars, min_df=2, sublinear_tf=True, max_features=max_chars),
    )
    return make_pipeline(features, LogisticRegression(C=c, max_iter=5000, class_weight="balanced"))


def train(
    examples: list[Example],
    *,
    c: float = 16.0,
    max_words: int = 3000,
    max_chars: int = 20000,
    seed: int = 0,
    targets: dict[str, float] = FALSE_POSITIVE_TARGETS,
) -> dict[str, Any]:
    """Fit the model and pick the threshold from 5-fold out-of-fold scores of the benign lines.

    Returns the JSON-ready model: ``word`` and ``char`` (n-gram → [idf, weight]), ``intercept``,
    ``threshold`` and a small ``trained_on`` summary.
    """
    import numpy as np
    from sklearn.model_selection import StratifiedGroupKFold, cross_val_predict

    pairs = grouped(examples)
    examples = [ex for ex, _ in pairs]
    groups = [g for _, g in pairs]
    texts = [ex.text for ex in examples]
    labels = np.array([ex.attack for ex in examples])
    folds = StratifiedGroupKFold(5, shuffle=True, random_state=seed)
    oof = cross_val_predict(
        _pipeline(c, max_words, max_chars), texts, labels, groups=groups, cv=folds, method="predict_proba"
    )[:, 1]
    per_language = thresholds(examples, groups, oof, targets)
    threshold = max(per_language.values())
    pipe = _pipeline(c, max_words, max_chars).fit(texts, labels)
    union, clf = pipe.steps[0][1], pipe.steps[1][1]
    word_vec, char_vec = (t for _, t in union.transformer_list)
    weights = clf.coef_[0]
    n_words = len(word_vec.vocabulary_)
    return {
        "version": 1,
        "threshold": round(threshold, 6),
        "thresholds": {lang: round(value, 6) for lang, value in per_language.items()},
        "intercept": round(float(clf.intercept_[0]), 6),
        "word": _block(word_vec, weights[:n_words]),
        "char": _block(char_vec, weights[n_words:]),
        "trained_on": {"attacks": int(labels.sum()), "benign": int((~labels).sum()), "c": c},
    }


def _block(vectorizer: Any, weights: Any) -> dict[str, list[float]]:
    return {
        term: [round(float(vectorizer.idf_[i]), 5), round(float(weights[i]), 6)]
        for term, i in sorted(vectorizer.vocabulary_.items())
    }
