"""Picks the passages of the v9 full-translation queries (issue 24 item 2, round 4), seeded, before any query was written.

    FUZI_CORPUS_DIR=… python evals/retrieval/pick_v9.py

Pool: all 817 passages (512 Analects paragraphs, 305 poems), shuffled by `random.Random(SEED)`.
Dev (`translation_v9` in dev.jsonl): the first 60 in that order whose id is not the gold of any
hand-written held-out query (so tuning on dev never looks at a held-out passage). Held-out
(`translation_v9` in heldout.jsonl): the next 40 in that order. For a poem the part to translate is
the whole poem when it is at most 3 stanzas and 100 characters, else one stanza picked by the same
generator. Each line printed: class, id, a locator (the shortest run of whole clauses, ≥ 6
characters, that no other passage contains; the gold is resolved from it by containment, as for
every written set) and the text to translate. The queries were then written by hand for exactly
these passages, in this order (`written_v9_dev.tsv`, `written_v9.tsv`), before any method of that
round ran on them.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.retrieval.documents import load_corpus, sort_key  # noqa: E402
from core.retrieval.fusion import squash  # noqa: E402

SEED = 20261209
N_DEV, N_HELD = 60, 40
_CLAUSE = re.compile(r"[^，。：；！？、\n“”‘’]+")


def heldout_gold() -> set[str]:
    """Gold ids of every hand-written held-out query (generated classes excluded)."""
    seen: set[str] = set()
    for path in ("retrieval/heldout.jsonl", "retrieval_en/heldout.jsonl"):
        for line in (ROOT / "evals" / path).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if not row.get("class", "").startswith("gen_") and row.get("class") != "translation_v9":
                seen.update(row["gold"])
    return seen


def locator(passage, part: str, others: list[str]) -> str:
    """The shortest run of whole clauses of `part` (≥ 6 characters) no other passage contains."""
    clauses = _CLAUSE.findall(part)
    best = ""
    for i in range(len(clauses)):
        for j in range(i + 1, len(clauses) + 1):
            run = "".join(clauses[i:j])
            if len(run) >= 6 and not any(run in o for o in others):
                if not best or len(run) < len(best):
                    best = run
                break
    if not best:
        raise SystemExit(f"no unique locator in {passage.id}")
    return best


def pick(passages) -> list[tuple[str, object, str]]:
    order = sorted(passages, key=lambda p: sort_key(p.id))
    rng = random.Random(SEED)
    rng.shuffle(order)
    held_seen = heldout_gold()
    dev = [p for p in order if p.id not in held_seen][:N_DEV]
    dev_ids = {p.id for p in dev}
    held = [p for p in order if p.id not in dev_ids][: N_DEV + N_HELD]
    held = [p for p in held if order.index(p) > max(order.index(d) for d in dev)][:N_HELD]
    out = []
    for cls, chosen in (("dev", dev), ("heldout", held)):
        for p in chosen:
            part = p.text
            if p.corpus == "shijing":
                stanzas = [s for s in p.text.split("\n") if s.strip()]
                if len(stanzas) > 3 or len(p.text) > 100:
                    part = stanzas[rng.randrange(len(stanzas))]
            out.append((cls, p, part))
    return out


def main() -> None:
    passages = load_corpus(Path(os.environ.get("FUZI_CORPUS_DIR", str(ROOT / "var/corpus"))))
    squashed = {p.id: squash(p.text) for p in passages}
    for cls, p, part in pick(passages):
        others = [t for i, t in squashed.items() if i != p.id]
        loc = locator(p, part, others)
        print(f"{cls}\t{p.id}\t{p.title}\t{loc}\t{' '.join(part.split())}")


if __name__ == "__main__":
    main()
