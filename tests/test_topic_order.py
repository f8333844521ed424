"""The theme lists' heads are the readers' order (evals/topics/order.py): the committed data/themes files
are what the build writes from the lists as written and the readers' rankings. Needs the git history
(a shallow clone skips)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evals.topics import order


def test_the_committed_theme_lists_are_what_the_readers_order_writes(corpus_dir: Path) -> None:
    known = subprocess.run(["git", "cat-file", "-e", f"{order.BASE}^{{commit}}"], cwd=order.ROOT, capture_output=True)
    if known.returncode:
        pytest.skip(f"{order.BASE} is not in this clone's history")
    for file, text in order.ordered(order.BASE, corpus_dir).items():
        assert text == (order.ROOT / "data" / "themes" / f"{file}.tsv").read_text("utf-8"), file


def test_every_ranked_theme_and_passage_is_listed(corpus_dir: Path) -> None:
    resolve = order.resolver(corpus_dir)
    lists = {}
    for file in order.FILES:
        for line in (order.ROOT / "data" / "themes" / f"{file}.tsv").read_text("utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                name, *cells = line.split("\t")
                lists[(file, name)] = {resolve(file, cell) for cell in cells}
    for key, rankings in order.rankings().items():
        assert sorted(r["reader"] for r in rankings) == [1, 2], key
        for ranking in rankings:
            assert set(ranking["top"]) <= lists[key] and set(ranking["not_about"]) <= lists[key], key
