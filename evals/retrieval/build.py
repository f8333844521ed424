"""Writes evals/retrieval/dev.jsonl and evals/retrieval/heldout.jsonl (deterministic).

Two kinds of query, kept apart by class name:

* **Generated from the corpus** (classes `gen_*`, seed below). Nobody chose these queries one by one;
  they test what the corpus itself makes checkable, and they lean lexical (a quote shares characters
  with its passage):
  - `gen_quote_lunyu`: one sentence (6-30 characters, the speaker's 子曰： removed) of each Analects
    paragraph.
  - `gen_quote_shijing`: one line (a sentence between 。) of each Book of Songs poem.
  - `gen_misquote`: a sentence as someone half-remembers it: one character dropped or two neighbouring
    characters swapped, kept only when the result is in no passage verbatim (so the containment rule
    cannot answer it; the fusion has to).
  - `gen_title_question`: a modern-Chinese question about each poem by its title, from six templates;
    gold: every poem with that title.
  - `gen_asked_about`: the Analects' "X问Y" openings (樊迟问仁, 子张问政) as a modern question; gold:
    every paragraph containing "X问Y".
* **Written by this team** (`written.tsv`, its header says how): each batch goes whole to one side.

Split of the generated queries: held out when sha256("fuzi-v2-split:" + the passage it was made from)
falls in the lower 40 %, so a held-out passage is never seen through a generated dev query. Gold ids
are resolved by containment (punctuation ignored); a query whose gold would exceed 40 passages is
dropped (generated) or stops the script (written).

    FUZI_CORPUS_DIR=… python -m evals.retrieval.build [CORPUS_DIR]
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
from pathlib import Path

from core.retrieval.documents import load_corpus, sort_key
from core.retrieval.fusion import squash

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

SEED = 20261130
HELDOUT_SHARE = 0.4
MAX_GOLD = 40
TITLE_TEMPLATES = (
    "《{t}》写的是什么？",
    "诗经里的{t}讲了什么",
    "{t}这首诗是什么意思",
    "给我讲讲诗经的{t}",
    "《{t}》表达了什么感情？",
    "{t}是诗经里的哪一首，内容是什么",
)
_SENTENCE = re.compile(r"[^。！？；]+[。！？；]?")
_SPEAKER = re.compile(r"^[^，。：]{1,8}曰：")
_ASKED = re.compile(r"^([\u4e00-\u9fff]{1,3})问([\u4e00-\u9fff]{1,2})[。，：]")


def heldout(passage_id: str) -> bool:
    digest = hashlib.sha256(f"fuzi-v2-split:{passage_id}".encode()).digest()
    return digest[0] / 256 < HELDOUT_SHARE


class Resolver:
    """Gold ids by containment over the squashed passages."""

    def __init__(self, passages):
        self.squashed = [(p.id, squash(p.text)) for p in passages]
        self.texts = {p.id: p.text for p in passages}

    def containing(self, text: str) -> list[str]:
        key = squash(text)
        return sorted((i for i, t in self.squashed if key in t), key=sort_key)


def sentences(text: str) -> list[str]:
    out = []
    for line in text.split("\n"):
        for s in _SENTENCE.findall(line):
            s = _SPEAKER.sub("", s.strip()).strip("“”‘’「」『』：，")
            if 6 <= len(squash(s)) <= 30:
                out.append(s.rstrip("。！？；"))
    return out


def misquote(sentence: str, rng: random.Random) -> str:
    chars = list(sentence)
    positions = [i for i, c in enumerate(chars) if "\u4e00" <= c <= "\u9fff"]
    inner = positions[1:-1] or positions
    i = rng.choice(inner)
    if rng.random() < 0.5:
        del chars[i]
    else:
        j = next((p for p in positions if p > i), None)
        if j is None:
            del chars[i]
        else:
            chars[i], chars[j] = chars[j], chars[i]
    return "".join(chars)


def generated(passages) -> list[dict]:
    rng = random.Random(SEED)
    resolve = Resolver(passages)
    rows: list[dict] = []

    def add(cls: str, query: str, gold: list[str], source: str) -> None:
        if gold and len(gold) <= MAX_GOLD:
            rows.append({"query": query, "gold": gold, "class": cls, "source": source})

    titles: dict[str, list[str]] = {}
    for p in passages:
        if p.corpus == "shijing":
            titles.setdefault(p.title, []).append(p.id)
    for p in passages:
        sents = sentences(p.text)
        if sents:
            quote = rng.choice(sents)
            cls = "gen_quote_lunyu" if p.corpus == "lunyu" else "gen_quote_shijing"
            add(cls, quote, resolve.containing(quote), p.id)
        if len(sents) >= 1:
            original = rng.choice(sents)
            for _ in range(5):
                bent = misquote(original, rng)
                if not resolve.containing(bent):
                    add("gen_misquote", bent, resolve.containing(original), p.id)
                    break
        if p.corpus == "shijing":
            template = rng.choice(TITLE_TEMPLATES)
            add("gen_title_question", template.format(t=p.title), sorted(titles[p.title], key=sort_key), p.id)
        else:
            m = _ASKED.match(p.text)
            if m:
                who, what = m.groups()
                add(
                    "gen_asked_about",
                    f"{who}问{what}的时候，孔子是怎么回答的？",
                    resolve.containing(f"{who}问{what}"),
                    p.id,
                )
    seen: set[tuple[str, str]] = set()
    unique = []
    for row in rows:  # the same question asked of two passages (樊迟问仁 twice) is one query
        key = (row["class"], row["query"])
        if key not in seen:
            seen.add(key)
            unique.append(row)
    return unique


def written(path: Path, resolve: Resolver) -> dict[str, list[dict]]:
    """The hand-written rows of `path` (written.tsv) by side, in file order."""
    sides: dict[str, list[dict]] = {"dev": [], "heldout": []}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        side, source, cls, query, gold_or_locator = line.split("\t")
        if gold_or_locator.startswith("["):
            gold = json.loads(gold_or_locator)
        else:
            gold = resolve.containing(gold_or_locator)
            if not gold or len(gold) > MAX_GOLD:
                raise SystemExit(f"{path.name}: locator {gold_or_locator!r} resolves to {len(gold)} passages")
        sides[side].append({"query": query, "gold": gold, "class": cls, "source": source})
    return sides


def main(corpus_dir: str) -> None:
    passages = load_corpus(Path(corpus_dir))
    gen = generated(passages)
    hand = written(HERE / "written.tsv", Resolver(passages))
    dev = [r for r in gen if not heldout(r["source"])] + hand["dev"]
    held = [r for r in gen if heldout(r["source"])] + hand["heldout"]
    for name, rows in (("dev.jsonl", dev), ("heldout.jsonl", held)):
        with open(HERE / name, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        counts: dict[str, int] = {}
        for row in rows:
            counts[row["class"]] = counts.get(row["class"], 0) + 1
        print(name, len(rows), dict(sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FUZI_CORPUS_DIR", str(ROOT / "var/corpus")))
