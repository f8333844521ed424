"""Round 8's fine-tuned encoder as a frozen candidate (issue 24, ninth round): trained on every dev
row, its thresholds from out-of-fold scores, then run once on the held-out files.

Run from the repository root (needs torch and scikit-learn; any x86-64 CPU):
    python evals/guard/finetune_candidate.py train [--top 4] [--epochs 3]
    python evals/guard/finetune_candidate.py heldout [--judge scripted]

`train` fine-tunes the top `--top` layers of multilingual-e5-small and a linear head on `lines_of`
every dev row (finetune_cv.fine_tune, the recipe round 8 measured), and takes the thresholds of the
mean with the n-gram score as `semantic_train.train` does for v10's regression: 5-fold out-of-fold
scores of both models (the n-gram recipe per fold, folds by message), the quantile at
`SEMANTIC_TARGETS` of each language's benign messages. The candidate (head weights and thresholds) is
written under $FUZI_HOME/guard_candidate/ (not committed: 4 layers are 28 MB in float32); its
description to evals/results/v11_candidate.json.

`heldout` builds the detector as `fuzi guard-eval` does (rules, the bundled n-gram model, sentence
windows) with the candidate as its semantic feature — the float model in torch, so the figures are
those of the model the thresholds were calibrated on — and writes the report of each held-out file
to evals/results/v11_candidate_on_<set>_heldout[_judge_NAME].json, as `fuzi guard-eval --json` does.
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
import torch  # noqa: E402
from e5_torch import E5, Tokenizer  # noqa: E402
from finetune_cv import Head, fine_tune, lower_states, probabilities  # noqa: E402
from semantic_cv_v10 import dev_examples, fit_ngram, folds, lines_of, ngram_score  # noqa: E402

from core.guards.ngram_train import language  # noqa: E402
from core.guards.semantic import SemanticScreen, embedded_units  # noqa: E402
from core.guards.semantic_train import SEMANTIC_TARGETS, Inner, mean_threshold  # noqa: E402

OUT = Path(os.environ.get("FUZI_HOME", ROOT / "var")) / "guard_candidate"
RESULTS = ROOT / "evals" / "results"
HELDOUT = {"guard": ROOT / "evals/guard/heldout.jsonl", "guard_en": ROOT / "evals/guard_en/heldout.jsonl"}


def train(top: int, epochs: int) -> None:
    torch.manual_seed(0)
    examples = dev_examples()
    model, tok = E5(), Tokenizer()
    units = sorted({u for ex in examples for u in embedded_units(ex.text)})
    states = lower_states(model, tok, units, model.cfg["NL"] - top)
    attack = np.array([ex.attack for ex in examples])
    ngram, semantic = np.zeros(len(examples)), np.zeros(len(examples))
    for k, (fit_idx, test_idx) in enumerate(folds(attack, np.arange(len(examples)))):
        lines, y, _ = lines_of(examples, fit_idx)
        head = fine_tune(model, [states[t] for t in lines], np.array(y), top, epochs)
        pipe = fit_ngram(examples, fit_idx)
        for i in test_idx:
            us = embedded_units(examples[i].text)
            ngram[i] = ngram_score(pipe, examples[i].text)
            semantic[i] = float(probabilities(head, [states[u] for u in us]).max())
        print(f"fold {k} scored", file=sys.stderr, flush=True)
    inner = Inner(ngram, semantic, attack, [language(ex.text) for ex in examples])
    thresholds = {lang: mean_threshold(inner, lang, target) for lang, target in SEMANTIC_TARGETS.items()}
    lines, y, _ = lines_of(examples, list(range(len(examples))))
    head = fine_tune(model, [states[t] for t in lines], np.array(y), top, epochs)
    OUT.mkdir(parents=True, exist_ok=True)
    torch.save(head.state_dict(), OUT / "head.pt")
    meta = {
        "kind": "top layers of multilingual-e5-small fine-tuned (float, torch) and a linear head",
        "layers": top,
        "epochs": epochs,
        "combine": "mean of the n-gram and fine-tuned probabilities",
        "thresholds": {lang: round(float(t), 6) for lang, t in thresholds.items() if t is not None},
        "targets": SEMANTIC_TARGETS,
        "trained_on": {"attacks": int(attack.sum()), "benign": int((~attack).sum())},
        "out_of_fold_dev": _oof_counts(inner, thresholds),
    }
    (OUT / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    (RESULTS / "v11_candidate.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(meta, indent=1))


def _oof_counts(inner: Inner, thresholds: dict) -> dict[str, int]:
    """Out-of-fold flags of the semantic mean alone (rules and the n-gram classifier's own flags aside)."""
    mean = (inner.ngram + inner.semantic) / 2
    flagged = np.array([m >= thresholds[lang] for m, lang in zip(mean, inner.lang, strict=True)])
    benign_zh = (~inner.attack) & np.array([x == "zh" for x in inner.lang])
    benign_en = (~inner.attack) & np.array([x == "en" for x in inner.lang])
    return {
        "attacks_over_threshold": int((flagged & inner.attack).sum()),
        "benign_zh_over_threshold": int((flagged & benign_zh).sum()),
        "benign_en_over_threshold": int((flagged & benign_en).sum()),
    }


class Candidate:
    """The trained candidate: unit → probability (all 12 layers in torch, the top ones fine-tuned)."""

    def __init__(self) -> None:
        self.meta = json.loads((OUT / "meta.json").read_text(encoding="utf-8"))
        self.model, self.tok = E5(), Tokenizer()
        self.keep = self.model.cfg["NL"] - self.meta["layers"]
        self.head = Head(self.model.layers[self.keep :], self.model.cfg["H"])
        self.head.load_state_dict(torch.load(OUT / "head.pt"))
        self.head.eval()

    def __call__(self, unit: str) -> float:
        return float(probabilities(self.head, list(lower_states(self.model, self.tok, [unit], self.keep).values()))[0])

    def screen(self) -> SemanticScreen:
        return SemanticScreen(self, self.meta["thresholds"])


def heldout(judge: str | None) -> None:
    from bot.commands import guard as guard_cmd
    from core.guards.evaluation import evaluate, load_examples
    from core.guards.guard import FuziGuard
    from core.guards.injection import InjectionDetector
    from core.guards.limits import InMemoryRateLimiter, Quota

    candidate = Candidate()
    detector = InjectionDetector(semantic=candidate.screen())
    guard = FuziGuard(InMemoryRateLimiter(Quota()), detector=detector)
    for name, path in HELDOUT.items():
        examples = load_examples(path)
        report = evaluate(examples, lambda text: guard.screen_input(text)[0].reason == "injection")
        report["second_opinion_band"] = guard_cmd._band(guard, examples)
        report["semantic"] = "v11 candidate (evals/results/v11_candidate.json)"
        if judge:
            report = guard_cmd._judged(report, examples, judge, detector)
        report.pop("misses")
        suffix = f"_judge_{judge}" if judge else ""
        out = RESULTS / f"v11_candidate_on_{name}_heldout{suffix}.json"
        out.write_text(json.dumps(report, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{name}: tp {report['tp']} fn {report['fn']} fp {report['fp']} tn {report['tn']} → {out}")


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train")
    t.add_argument("--top", type=int, default=4)
    t.add_argument("--epochs", type=int, default=3)
    h = sub.add_parser("heldout")
    h.add_argument("--judge", default=None)
    args = parser.parse_args()
    if args.command == "train":
        train(args.top, args.epochs)
    else:
        heldout(args.judge)


if __name__ == "__main__":
    main()
