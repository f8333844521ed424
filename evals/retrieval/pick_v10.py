"""Picks the passages of the v10 translation queries (issue 24 item 2, round 5), seeded, before any query was written.

    FUZI_CORPUS_DIR=… python evals/retrieval/pick_v10.py

Two classes, both new passages for every earlier hand-written set (no id that any hand-written dev or
held-out query has as gold, so neither side has been looked at before):
- `translation_v10`: the v9 recipe with a new seed — pool all 817 passages; a poem is translated
  whole when it has at most 3 stanzas and 100 characters, else one stanza picked by the same generator.
- `stanza_v10`: one stanza of a poem with at least 2 stanzas (the case round 4 lost on: a stanza of a
  long poem, whose passage-level gloss sums up the whole poem).
- `stanza_en_v10` (`pick_english`, its own generator): one stanza of a poem of 2+ stanzas that none of
  the above and no earlier hand-written query uses, to be rendered in English.
Dev: the first N_DEV of each class in the shuffled order; held-out: the next N_HELD, on passages no
dev query of either class uses. Each line printed: side, class, id, title, a locator (the shortest
run of whole clauses of the part, ≥ 6 characters, that no other passage contains) and the text to
translate (a part with no such run, a repeated paragraph, is skipped). The queries are then written for exactly these lines, in this order (`written_v10_dev.tsv`,
`written_v10.tsv`; English: `written_v10_en_dev.tsv`, `written_v10_en.tsv`), before any method of that
round runs on them.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.retrieval.documents import load_corpus, sort_key  # noqa: E402
from core.retrieval.fusion import squash  # noqa: E402
from evals.retrieval.pick_v4 import seen_gold  # noqa: E402
from evals.retrieval.pick_v9 import locator  # noqa: E402

SEED = 20261204
N_DEV, N_HELD = {"translation_v10": 40, "stanza_v10": 30}, {"translation_v10": 40, "stanza_v10": 30}
V10_CLASSES = ("translation_v10", "stanza_v10", "stanza_en_v10")


def written_gold() -> set[str]:
    """Gold ids of every hand-written query, dev and held-out (generated classes and v10's own excluded)."""
    return seen_gold(own=lambda cls: cls in V10_CLASSES)


def stanzas(p) -> list[str]:
    return [s for s in p.text.split("\n") if s.strip()]


def pick(passages) -> list[tuple[str, str, object, str, str]]:
    squashed = {p.id: squash(p.text) for p in passages}
    order = sorted(passages, key=lambda p: sort_key(p.id))
    rng = random.Random(SEED)
    rng.shuffle(order)
    seen = written_gold()
    fresh = [p for p in order if p.id not in seen]
    pools = {
        "translation_v10": fresh,
        "stanza_v10": [p for p in fresh if p.corpus == "shijing" and len(stanzas(p)) >= 2],
    }
    used: set[str] = set()
    out: list[tuple[str, str, object, str, str]] = []
    for side, counts in (("dev", N_DEV), ("heldout", N_HELD)):
        for cls, pool in pools.items():
            n = 0
            for p in pool:
                if n == counts[cls] or p.id in used:
                    continue
                part = p.text
                parts = stanzas(p)
                if cls == "stanza_v10" or (p.corpus == "shijing" and (len(parts) > 3 or len(p.text) > 100)):
                    part = parts[rng.randrange(len(parts))]
                try:  # a part that no other passage tells apart (a repeated paragraph) is skipped
                    loc = locator(p, part, [t for i, t in squashed.items() if i != p.id])
                except SystemExit:
                    continue
                used.add(p.id)
                out.append((side, cls, p, part, loc))
                n += 1
    return out


N_ENGLISH = 30  # per side


def pick_english(passages, taken: set[str]) -> list[tuple[str, str, object, str, str]]:
    """`stanza_en_v10`: one stanza of a poem of 2+ stanzas, to be rendered in English (a reader pasting
    a translation), on poems none of the picks above and no earlier hand-written query uses; its own
    generator (SEED + 1), so adding it left the picks above as they were."""
    squashed = {p.id: squash(p.text) for p in passages}
    order = sorted(passages, key=lambda p: sort_key(p.id))
    rng = random.Random(SEED + 1)
    rng.shuffle(order)
    seen = written_gold() | taken
    pool = [p for p in order if p.id not in seen and p.corpus == "shijing" and len(stanzas(p)) >= 2]
    out: list[tuple[str, str, object, str, str]] = []
    for p in pool:
        if len(out) == 2 * N_ENGLISH:
            break
        part = stanzas(p)[rng.randrange(len(stanzas(p)))]
        try:
            loc = locator(p, part, [t for i, t in squashed.items() if i != p.id])
        except SystemExit:
            continue
        out.append(("dev" if len(out) < N_ENGLISH else "heldout", "stanza_en_v10", p, part, loc))
    return out


def main() -> None:
    passages = load_corpus(Path(os.environ.get("FUZI_CORPUS_DIR", str(ROOT / "var/corpus"))))
    picks = pick(passages)
    picks += pick_english(passages, {p.id for _, _, p, _, _ in picks})
    for side, cls, p, part, loc in picks:
        print(f"{side}\t{cls}\t{p.id}\t{p.title}\t{loc}\t{' '.join(part.split())}")


if __name__ == "__main__":
    main()
