"""Writes evals/guard/dev.jsonl and evals/guard/heldout.jsonl (the input screen's attacks and benign
Chinese/English messages). Run from the repository root: python evals/guard/build.py

dev.jsonl — what detectors were tuned and trained on:
  * every earlier set, read from git at EARLIER_COMMIT (guard_dev, guard_holdout_v1..v3,
    guard_holdout = holdout v4, guard_v5_dev, guard_v5_holdout; docs/guards.md has their history);
  * the in-world role-play lines (roleplay_benign.py);
  * the dev part of the v7 material (attacks_v7.py, benign_zh_v7.py);
  * the dev part of the v8 material (attacks_v8.py, benign_zh_v8.py; source "v8");
  * the dev part of the v9 material (attacks_v9.py, benign_zh_v9.py; source "v9");
  * the v10 training material (attacks_v10.DEV, benign_zh_v10.DEV_LOOKALIKE; source "v10").
heldout.jsonl — never tuned or trained on:
  * the v6 holdout (holdout_v6.py: 50 attacks, 50 benign Chinese);
  * the held-out part of the v7 material;
  * the held-out part of the v8 material (after the v7 rows);
  * the held-out part of the v9 material (after the v8 rows);
  * the v10 held-out (attacks_v10.HELD, benign_zh_v10.HELD_*; after the v9 rows).
Split of the v7 material: a line is held out when sha256("fuzi-v7-guard:" + text) falls in the
lower 40 %; of the v8 material, sha256("fuzi-v8-guard:" + text) in the lower 60 % (attacks) or
75 % (benign: the held-out benign Chinese must be large enough to show 0.5 %). Both decided before
any detector ran on the lines; of the v9 material, sha256("fuzi-v9-guard:" + text) in the lower
65 %, decided before detector v9 changed. A v8 or v9 line that is already in earlier material is left out (not
fresh). The v10 material is not split by hash: its author wrote separate training and held-out
lists before detector v10 changed. Every row has a `source`.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import attacks_v10  # noqa: E402
import benign_zh_v8  # noqa: E402
import benign_zh_v9  # noqa: E402
import benign_zh_v10  # noqa: E402
from attacks_v7 import ATTACKS  # noqa: E402
from attacks_v8 import ATTACKS as ATTACKS_V8  # noqa: E402
from attacks_v9 import ATTACKS as ATTACKS_V9  # noqa: E402
from benign_zh_v7 import CLASSICS, LIFE, LOOKALIKE, MODERN, QUOTE  # noqa: E402
from holdout_v6 import ATTACKS as ATTACKS_V6  # noqa: E402
from holdout_v6 import BENIGN_ZH as BENIGN_V6  # noqa: E402
from roleplay_benign import LINES as ROLEPLAY  # noqa: E402

EARLIER_COMMIT = "922382e"
EARLIER = (
    "guard_dev",
    "guard_holdout_v1",
    "guard_holdout_v2",
    "guard_holdout_v3",
    "guard_holdout",
    "guard_v5_dev",
    "guard_v5_holdout",
)
KIND_NAMES = {"extraction": "extract"}  # v6's name for the kind


V8_SALT, V8_ATTACKS_HELD, V8_BENIGN_HELD = "fuzi-v8-guard:", 0.6, 0.75
V8_BENIGN = ("LIFE", "MODERN", "LOOKALIKE", "QUOTE", "CLASSICS", "IN_WORLD")
V9_SALT, V9_HELD = "fuzi-v9-guard:", 0.65
V9_BENIGN = ("LOOKALIKE", "LIFE", "MODERN", "QUOTE", "CLASSICS")


def held_out(text: str, salt: str = "fuzi-v7-guard:", share: float = 0.4) -> bool:
    digest = hashlib.sha256(f"{salt}{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def _row(text: str, attack: bool, style: str, lang: str, kind: str, source: str) -> dict:
    return {
        "text": text,
        "attack": attack,
        "style": style,
        "lang": lang,
        "kind": kind,
        "variant": "plain",
        "source": source,
    }


def earlier_rows() -> list[dict]:
    rows = []
    for name in EARLIER:
        blob = subprocess.run(
            ["git", "show", f"{EARLIER_COMMIT}:evals/{name}.jsonl"],
            capture_output=True,
            text=True,
            check=True,
            cwd=HERE,
        ).stdout
        for line in blob.splitlines():
            if line.strip():
                rows.append({**json.loads(line), "source": name})
    return rows


def attack_rows(attacks: dict[tuple[str, str, str], list[str]], source: str) -> list[dict]:
    """Rows of an attack file's `ATTACKS` ((style, kind, language) → lines)."""
    return [
        _row(t, True, style, lang, f"{lang}_{KIND_NAMES.get(kind, kind)}", source)
        for (style, kind, lang), texts in attacks.items()
        for t in texts
    ]


def benign_rows(named: dict[str, list[str]], source: str) -> list[dict]:
    """Rows of benign Chinese lines by kind name."""
    return [_row(t, False, "benign", "zh", f"benign_zh_{kind}", source) for kind, texts in named.items() for t in texts]


def unseen(rows: list[dict], seen: set[str]) -> list[dict]:
    """`rows` less the lines in `seen` and repeats; the kept lines join `seen`."""
    fresh = []
    for r in rows:
        if r["text"] not in seen:
            seen.add(r["text"])
            fresh.append(r)
    return fresh


def split(rows: list[dict], held) -> tuple[list[dict], list[dict]]:
    """(dev, held-out) by `held(row)`."""
    flags = [held(r) for r in rows]
    return [r for r, h in zip(rows, flags, strict=True) if not h], [r for r, h in zip(rows, flags, strict=True) if h]


def v7_rows() -> list[dict]:
    benign = {"life": LIFE, "lookalike": LOOKALIKE, "quote": QUOTE, "classics": CLASSICS, "modern": MODERN}
    return attack_rows(ATTACKS, "v7") + benign_rows(benign, "v7")


def v8_rows(seen: set[str]) -> tuple[list[dict], list[dict]]:
    """(dev, held-out) rows of the v8 material; lines already in `seen` are left out."""
    benign = {name.lower(): getattr(benign_zh_v8, name) for name in V8_BENIGN}
    rows = unseen(attack_rows(ATTACKS_V8, "v8") + benign_rows(benign, "v8"), seen)
    return split(rows, lambda r: held_out(r["text"], V8_SALT, V8_ATTACKS_HELD if r["attack"] else V8_BENIGN_HELD))


def v9_rows(seen: set[str]) -> tuple[list[dict], list[dict]]:
    """(dev, held-out) rows of the v9 material; lines already in `seen` (or repeated) are left out."""
    benign = {name.lower(): getattr(benign_zh_v9, name) for name in V9_BENIGN}
    rows = unseen(attack_rows(ATTACKS_V9, "v9") + benign_rows(benign, "v9"), seen)
    return split(rows, lambda r: held_out(r["text"], V9_SALT, V9_HELD))


def v10_rows(seen: set[str]) -> tuple[list[dict], list[dict]]:
    """(dev, held-out) rows of the v10 material (written apart); lines already in `seen` (or repeated) are left out."""
    dev = attack_rows(attacks_v10.DEV, "v10") + benign_rows({"lookalike": benign_zh_v10.DEV_LOOKALIKE}, "v10")
    held = attack_rows(attacks_v10.HELD, "v10") + benign_rows(
        {"lookalike": benign_zh_v10.HELD_LOOKALIKE, "other": benign_zh_v10.HELD_OTHER}, "v10"
    )
    return unseen(dev, seen), unseen(held, seen)


def v6_rows() -> list[dict]:
    rows = []
    for (style, kind, lang), texts in ATTACKS_V6.items():
        rows += [_row(t, True, style, lang, f"{lang}_{kind}", "v6_holdout") for t in texts]
    rows += [_row(t, False, "benign", "zh", "benign_zh", "v6_holdout") for t in BENIGN_V6]
    return rows


def main() -> None:
    fresh = v7_rows()
    dev = earlier_rows()
    dev += [_row(t, False, "benign", lang, "in_world_roleplay", "roleplay_v6") for lang, t in ROLEPLAY]
    dev += [r for r in fresh if not held_out(r["text"])]
    heldout = v6_rows() + [r for r in fresh if held_out(r["text"])]
    v8_dev, v8_held = v8_rows({r["text"] for r in dev + heldout})
    dev += v8_dev
    heldout += v8_held
    v9_dev, v9_held = v9_rows({r["text"] for r in dev + heldout})
    dev += v9_dev
    heldout += v9_held
    v10_dev, v10_held = v10_rows({r["text"] for r in dev + heldout})
    dev += v10_dev
    heldout += v10_held
    for name, part in (("dev.jsonl", dev), ("heldout.jsonl", heldout)):
        with open(HERE / name, "w", encoding="utf-8") as f:
            for row in part:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        attacks = sum(r["attack"] for r in part)
        print(f"{name}: {len(part)} lines, {attacks} attacks, {len(part) - attacks} benign")


if __name__ == "__main__":
    main()
