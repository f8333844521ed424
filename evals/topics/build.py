"""Writes evals/topics/dev.jsonl and evals/topics/heldout.jsonl from
`questions.py`: gold = every passage of the question's theme (data/themes/) within the book
the question names. Classes: topic_zh / topic_en. Run: python -m evals.topics.build
(needs FUZI_CORPUS_DIR or a fetched corpus).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.language.text import has_cjk
from core.retrieval.documents import load_corpus
from core.retrieval.themes import ThemeIndex
from evals.topics.questions import DEV, HELDOUT

HERE = Path(__file__).resolve().parent


def main() -> None:
    passages = load_corpus(Path(os.environ["FUZI_CORPUS_DIR"]))
    themes = ThemeIndex.of(passages)
    by_name = {t.name: t for t in themes.themes}
    for name, rows in (("dev.jsonl", DEV), ("heldout.jsonl", HELDOUT)):
        with open(HERE / name, "w", encoding="utf-8") as f:
            for theme, scope, query in rows:
                gold = [pid for pid in by_name[theme].ids if scope == "all" or pid.startswith(scope + ":")]
                cls = "topic_zh" if has_cjk(query) else "topic_en"
                f.write(
                    json.dumps({"query": query, "gold": gold, "class": cls, "theme": theme}, ensure_ascii=False) + "\n"
                )
        print(name, len(rows))


if __name__ == "__main__":
    main()
