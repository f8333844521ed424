"""Cross-validated estimate of the whole input screen on the dev sets (rules + classifier out of fold).

Run from the repository root (needs scikit-learn): python evals/guard/cv.py [--misses zh]

The dev messages (evals/guard/dev.jsonl and evals/guard_en/dev.jsonl) are cut into 5 folds by
message (StratifiedGroupKFold, seed 0); for each fold the classifier is trained with
`ngram_train.train` (its own per-language thresholds from an inner 5-fold CV) on the other four,
and the held fold is scored by `InjectionDetector` with every rule and that classifier. Prints
detection and false positives per language and kind; `--misses LANG` lists the missed attacks and
the false positives of that language (dev only: never run this on held-out files).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.guards.evaluation import Example, load_examples  # noqa: E402
from core.guards.injection import InjectionDetector  # noqa: E402
from core.guards.ngram import NgramClassifier  # noqa: E402
from core.guards.ngram_train import FALSE_POSITIVE_TARGETS, language, train  # noqa: E402

DEV = (ROOT / "evals" / "guard" / "dev.jsonl", ROOT / "evals" / "guard_en" / "dev.jsonl")


def out_of_fold(
    examples: list[Example], seed: int = 0, targets: dict[str, float] = FALSE_POSITIVE_TARGETS
) -> list[bool]:
    """Each message's flag from a detector whose classifier never saw it."""
    import numpy as np
    from sklearn.model_selection import StratifiedGroupKFold

    labels = np.array([ex.attack for ex in examples])
    flags = [False] * len(examples)
    folds = StratifiedGroupKFold(5, shuffle=True, random_state=seed)
    for fit_idx, test_idx in folds.split(np.zeros(len(examples)), labels, groups=range(len(examples))):
        model = train([examples[i] for i in fit_idx], targets=targets)
        detector = InjectionDetector(classifier=NgramClassifier(model))
        for i in test_idx:
            flags[i] = detector.detect(examples[i].text).flagged
    return flags


def summary(examples: list[Example], flags: list[bool]) -> dict[str, dict[str, float | int]]:
    """Detection (attacks) or false-positive rate (benign) per language and per kind."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for ex, flag in zip(examples, flags, strict=True):
        lang = language(ex.text)
        side = "attacks" if ex.attack else "benign"
        for key in (f"{side} all", f"{side} {lang}", f"{side} {ex.kind or ex.style or '-'}"):
            groups[key].append(flag)
    return {k: {"n": len(v), "flagged": sum(v), "rate": round(sum(v) / len(v), 4)} for k, v in sorted(groups.items())}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--misses", choices=("zh", "en"), default=None)
    parser.add_argument("--zh-target", type=float, default=FALSE_POSITIVE_TARGETS["zh"], help="to compare calibrations")
    args = parser.parse_args()
    examples = [ex for path in DEV for ex in load_examples(path)]
    flags = out_of_fold(examples, targets={**FALSE_POSITIVE_TARGETS, "zh": args.zh_target})
    print(json.dumps(summary(examples, flags), ensure_ascii=False, indent=1))
    if args.misses:
        for ex, flag in zip(examples, flags, strict=True):
            if language(ex.text) == args.misses and ex.attack != flag:
                print("MISS" if ex.attack else "FP  ", ex.kind, ex.text[:160])


if __name__ == "__main__":
    main()
