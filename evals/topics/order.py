"""Orders the head of each theme list in data/themes/ by three readers: the list's own order (as it stood
at the base revision) and two readers who ranked each theme's passages without seeing that order.

Each reader names the eight passages (or all, when fewer) a reader asking about the theme should see
first, most central first (evals/topics/readers/README.md is what they were told; their answers are
readers/<file>.jsonl, a line per reader and theme; each reader was shown the themes of one file with six or
more passages in it, in a seeded random order). A passage scores 8 for a first place down to 1 for an eighth,
summed over the readers; the list is sorted by that score, ties and the unranked rest in the base
order, and a passage both new readers find not about the theme goes last. Rewrites the three files
byte for byte from the base revision's lists (the headers are the files' own):

    python -m evals.topics.order [--base 0edb4aa]   # needs FUZI_CORPUS_DIR (or a fetched corpus)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from core.books import load_library
from core.retrieval.theme_cells import ThemeCells, theme_rows

ROOT = Path(__file__).resolve().parents[2]
READERS = Path(__file__).resolve().parent / "readers"
FILES = ("lunyu", "sishu", "shijing")
TOP = 8
BASE = "0edb4aa"  # the lists as written, before the readers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=BASE, help="the revision whose lists are the first reader")
    args = parser.parse_args()
    for file, text in ordered(args.base, Path(os.environ["FUZI_CORPUS_DIR"])).items():
        (ROOT / "data" / "themes" / f"{file}.tsv").write_text(text, "utf-8")


def ordered(base: str, corpus: Path) -> dict[str, str]:
    """file → its text: today's header, the base revision's lists with their heads in the readers' order."""
    resolve = resolver(corpus)
    readers = rankings()
    texts = {}
    for file in FILES:
        listed = subprocess.run(
            ["git", "show", f"{base}:data/themes/{file}.tsv"], cwd=ROOT, capture_output=True, check=True, text=True
        ).stdout
        target = ROOT / "data" / "themes" / f"{file}.tsv"
        header = [line for line in target.read_text("utf-8").splitlines() if line.startswith("#")]  # today's
        rows = [line for line in listed.splitlines() if line.strip() and not line.startswith("#")]
        lines = header + [_ordered(row, file, readers.get((file, row.split("\t", 1)[0])), resolve) for row in rows]
        texts[file] = "\n".join(lines) + "\n"
    return texts


def rankings() -> dict[tuple[str, str], list[dict]]:
    """(file, theme) → the readers' rankings of it (readers/<file>.jsonl, a line per reader and theme)."""
    found: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for file in FILES:
        for line in (READERS / f"{file}.jsonl").read_text("utf-8").splitlines():
            ranking = json.loads(line)
            found[(file, ranking["theme"])].append(ranking)
    return found


def _ordered(line: str, file: str, rankings: list[dict] | None, resolve: Callable[[str, str], str | None]) -> str:
    if not rankings:
        return line
    name, *cells = line.split("\t")
    ids = [resolve(file, cell) for cell in cells]
    place = {pid: n for n, pid in enumerate(ids)}
    score: dict[str | None, float] = defaultdict(float)
    for ranked in ([pid for pid in ids[:TOP]], *(r["top"][:TOP] for r in rankings)):
        for n, pid in enumerate(ranked):
            if pid in place:
                score[pid] += TOP - n
    dropped = set.intersection(*(set(r.get("not_about", ())) for r in rankings))
    order = sorted(range(len(cells)), key=lambda i: (ids[i] in dropped, -score[ids[i]], place[ids[i]]))
    return "\t".join([name, *(cells[i] for i in order)])


def resolver(corpus: Path) -> Callable[[str, str], str | None]:
    """file, cell → the passage the cell names (core/retrieval/theme_cells.py), or None."""
    cells = ThemeCells(theme_rows(load_library(corpus).passages))
    return lambda file, cell: next(iter(cells.ids(file, cell)), None)


if __name__ == "__main__":
    main()
