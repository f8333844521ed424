"""Training for `NgramClassifier` (`fuzi guard-train`); needs scikit-learn, scoring does not.

The feature extraction is the scorer's own (`word_grams`, `char_grams`), passed to scikit-learn as
analyzers, so the exported weights mean exactly what the scorer computes.
"""

from __future__ import annotations

from typing import Any

from core.guards.evaluation import Example
from core.guards.ngram import char_grams, word_grams
from core.guards.normalize import views

FALSE_POSITIVE_TARGET = 0.01


def _words(text: str) -> list[str]:
    return word_grams(views(text))


def _chars(text: str) -> list[str]:
    return char_grams(views(text))


def with_benign_windows(examples: list[Example]) -> list[Example]:
    """`examples` plus the sentence windows of every benign one, labelled benign.

    The detector also scores windows of a message (core/guards/injection.py), so the classifier
    must have seen benign sentences on their own; windows of attacks are not added (their benign
    sentences would be labelled attacks).
    """
    from core.guards.injection import windows

    extra = [Example(w, False) for ex in examples if not ex.attack for w in windows(ex.text)]
    return [*examples, *extra]


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
    examples: list[Example], *, c: float = 4.0, max_words: int = 3000, max_chars: int = 6000, seed: int = 0
) -> dict[str, Any]:
    """Fit the model and pick the threshold from 5-fold out-of-fold scores of the benign lines.

    Returns the JSON-ready model: ``word`` and ``char`` (n-gram → [idf, weight]), ``intercept``,
    ``threshold`` and a small ``trained_on`` summary.
    """
    import numpy as np
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    examples = with_benign_windows(examples)
    texts = [ex.text for ex in examples]
    labels = np.array([ex.attack for ex in examples])
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    oof = cross_val_predict(_pipeline(c, max_words, max_chars), texts, labels, cv=folds, method="predict_proba")
    threshold = float(np.quantile(oof[:, 1][~labels], 1 - FALSE_POSITIVE_TARGET))
    pipe = _pipeline(c, max_words, max_chars).fit(texts, labels)
    union, clf = pipe.steps[0][1], pipe.steps[1][1]
    word_vec, char_vec = (t for _, t in union.transformer_list)
    weights = clf.coef_[0]
    n_words = len(word_vec.vocabulary_)
    return {
        "version": 1,
        "threshold": round(threshold, 6),
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
