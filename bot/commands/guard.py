"""`fuzi guard-eval FILE.jsonl [--json]`: detection and false-positive rates of the input guard."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

CONTRACT_KEYS = ("n", "tp", "fp", "tn", "fn", "detection_rate", "false_positive_rate")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `guard-eval` subcommand."""
    p = sub.add_parser("guard-eval", help="score the prompt-injection input guard on labelled messages")
    p.add_argument("file", type=Path, help='JSONL lines {"text": str, "attack": bool} (optional "style")')
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--misses", action="store_true", help="also list misclassified messages")
    p.set_defaults(func=run)
    t = sub.add_parser("guard-train", help="train the n-gram injection classifier (needs scikit-learn)")
    t.add_argument("files", type=Path, nargs="+", help='JSONL lines {"text": str, "attack": bool}')
    t.add_argument("--out", type=Path, default=None, help="model file (default: the bundled one)")
    t.set_defaults(func=train)


def run(args: argparse.Namespace) -> int:
    from core.guards.evaluation import EvalFileError, evaluate, load_examples
    from core.guards.guard import FuziGuard
    from core.guards.limits import InMemoryRateLimiter, Quota

    try:
        examples = load_examples(args.file)
    except (OSError, EvalFileError) as exc:
        print(f"fuzi guard-eval: {exc}", file=sys.stderr)
        return 2
    # The input guard exactly as the engine runs it; no length limit, so only the detector decides.
    guard = FuziGuard(InMemoryRateLimiter(Quota()))
    report = evaluate(examples, lambda text: guard.screen_input(text)[0].reason == "injection")
    report["second_opinion_band"] = _band(guard, examples)
    if not args.misses:
        report.pop("misses")
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(_table(report))
    return 0


def _band(guard: Any, examples: list) -> dict[str, Any]:
    """How many attacks and benign lines fall in the second opinion's default band (each would cost
    one LLM call when an LLM is configured); the LLM's answers themselves are not measured here."""
    from core.guards.second_opinion import SecondOpinion

    band = SecondOpinion(llm=None)  # type: ignore[arg-type]  # only `wants` (no LLM call) is used
    counts = {"attack": 0, "benign": 0, "attacks": 0, "benigns": 0, "low": band.low, "high": band.high}
    for ex in examples:
        found = guard.screen_input(ex.text)[1]
        counts["attacks" if ex.attack else "benigns"] += 1
        if found is not None and band.wants(found):
            counts["attack" if ex.attack else "benign"] += 1
    return counts


def train(args: argparse.Namespace) -> int:
    """Train on the given files and write the model JSON; prints what it was trained on."""
    from core.guards.evaluation import EvalFileError, load_examples
    from core.guards.ngram import BUNDLED
    from core.guards.ngram_train import train as fit

    try:
        examples = [ex for path in args.files for ex in load_examples(path)]
    except (OSError, EvalFileError) as exc:
        print(f"fuzi guard-train: {exc}", file=sys.stderr)
        return 2
    try:
        model = fit(examples)
    except ImportError:
        print("fuzi guard-train: needs scikit-learn (pip install scikit-learn)", file=sys.stderr)
        return 2
    out = args.out or BUNDLED
    out.write_text(json.dumps(model, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    size = len(model["word"]) + len(model["char"])
    print(f"wrote {out}: {size} n-grams, threshold {model['threshold']:.3f}, {model['trained_on']}")
    return 0


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _row(name: str, c: dict[str, Any]) -> str:
    return (
        f"{name:<24} {c['n']:>5} {c['tp']:>5} {c['fn']:>5} {c['fp']:>5} {c['tn']:>5} "
        f"{_pct(c['detection_rate']):>8} {_pct(c['false_positive_rate']):>8}"
    )


def _table(report: dict[str, Any]) -> str:
    header = f"{'':<24} {'n':>5} {'tp':>5} {'fn':>5} {'fp':>5} {'tn':>5} {'detect':>8} {'fp rate':>8}"
    lines = [header, _row("all", report)]
    for label in ("kind", "style", "lang", "variant"):
        for name, counts in report.get(f"by_{label}", {}).items():
            lines.append(_row(f"{label}:{name}", counts))
    lines.append(f"mean {report['mean_us']} µs per message")
    b = report.get("second_opinion_band")
    if b:
        lines.append(
            f"second-opinion band [{b['low']}, {b['high']}]: {b['attack']}/{b['attacks']} attacks, "
            f"{b['benign']}/{b['benigns']} benign would be sent to the LLM (its answers are not measured here)"
        )
    for miss in report.get("misses", []):
        kind = "missed attack" if miss["attack"] else "false positive"
        lines.append(f"  {kind}: {miss['text']}")
    return "\n".join(lines)
