"""Scores the input guard on labelled messages (`fuzi guard-eval`)."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Example:
    """One labelled message; `style`, `lang`, `variant` and `kind` are optional grouping labels."""

    text: str
    attack: bool
    style: str | None = None
    lang: str | None = None
    variant: str | None = None
    kind: str | None = None


LABELS = ("style", "lang", "variant", "kind")


class EvalFileError(ValueError):
    """A line of the evaluation file is not a valid example (the message names the line)."""


def load_examples(path: Path, *, skip_sources: Collection[str] = ()) -> list[Example]:
    """Read ``{"text": str, "attack": bool, ...}`` lines; blank lines, and lines whose ``source`` is
    in ``skip_sources``, are skipped."""
    examples = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise EvalFileError(f"{path}:{number}: not JSON ({exc.msg})") from None
            if not (isinstance(row, dict) and isinstance(row.get("text"), str) and isinstance(row.get("attack"), bool)):
                raise EvalFileError(f'{path}:{number}: need {{"text": str, "attack": bool}}')
            if row.get("source") in skip_sources:
                continue
            labels = (row.get("style"), row.get("lang"), row.get("variant"), row.get("kind"))
            examples.append(Example(row["text"], row["attack"], *labels))
    return examples


def _counts(pairs: Iterable[tuple[bool, bool]]) -> dict[str, Any]:
    tp = fp = tn = fn = 0
    for attack, flagged in pairs:
        tp += attack and flagged
        fn += attack and not flagged
        fp += (not attack) and flagged
        tn += (not attack) and not flagged
    return {
        "n": tp + fp + tn + fn,
        "tp": tp,
        "fp": fp,
        "tn": tn,
        "fn": fn,
        "detection_rate": round(tp / (tp + fn), 4) if tp + fn else None,
        "false_positive_rate": round(fp / (fp + tn), 4) if fp + tn else None,
    }


def evaluate(
    examples: list[Example], is_flagged: Callable[[str], bool], explain: Callable[[str], str] | None = None
) -> dict[str, Any]:
    """Run `is_flagged` on every example; overall counts and rates, then the same per label.

    Returns the contract keys (n, tp, fp, tn, fn, detection_rate, false_positive_rate) plus
    ``by_style``/``by_lang``/``by_variant``/``by_kind``, ``mean_us`` (time per message) and ``misses``
    (with ``why`` from `explain`, when given: which rule or classifier features decided).
    """
    results: list[tuple[Example, bool]] = []
    start = time.perf_counter()
    for ex in examples:
        results.append((ex, is_flagged(ex.text)))
    elapsed = time.perf_counter() - start
    report = _counts((ex.attack, flagged) for ex, flagged in results)
    for label in LABELS:
        groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
        for ex, flagged in results:
            value = getattr(ex, label)
            if value is not None:
                groups[value].append((ex.attack, flagged))
        if groups:
            report[f"by_{label}"] = {k: _counts(v) for k, v in sorted(groups.items())}
    report["mean_us"] = round(elapsed / len(examples) * 1e6, 1) if examples else None
    report["misses"] = [
        {"text": ex.text, "attack": ex.attack, "style": ex.style, "kind": ex.kind}
        | ({"why": explain(ex.text)} if explain else {})
        for ex, flagged in results
        if flagged != ex.attack
    ]
    return report
