"""OCR benchmark: rendered photos of passages from both books, read by each engine, then scored.

    python -m benchmarks.ocr read --engine rapidocr --out var/ocr-rapidocr.json   # OCR only (any venv)
    python -m benchmarks.ocr score var/ocr-*.json                                 # accuracy, R@1, p50/p95

`read` renders 17 passages (9 Analects paragraphs, 8 poems, fixed seed) × 12 looks (3 fonts × 4
glyph sizes, rotation within ±3°, Gaussian blur, JPEG quality 60) = 204 photos of 1280×960 and
runs each through `PageReader.read_sync` (decode, OCR, cleaning: the path a photo takes in Fuzi),
on the threads the engine is given (2 = the machine's cores). It needs only Pillow and the engine,
so an engine that cannot share the project's venv (rapidocr-onnxruntime pins opencv-python) runs
from its own. `score` needs the project: character accuracy (1 − edit distance / length, Chinese
characters only), passage R@1 on the keyword route over the cleaned text, and latency percentiles.
Results: docs/media.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import time
from pathlib import Path

PASSAGES = 17


def _corpus_dir() -> Path:
    return Path(os.environ.get("FUZI_CORPUS_DIR", "var/corpus"))


def pick_passages(seed: int = 22) -> list[tuple[str, str]]:
    """(id, text) of 9 Analects paragraphs and 8 poems of at least 24 characters, fixed seed."""
    lunyu = json.loads((_corpus_dir() / "lunyu.json").read_text(encoding="utf-8"))
    shijing = json.loads((_corpus_dir() / "shijing.json").read_text(encoding="utf-8"))
    paras = [
        (f"lunyu:{c}.{p}", text)
        for c, chapter in enumerate(lunyu, 1)
        for p, text in enumerate(chapter["paragraphs"], 1)
        if len(text) >= 24
    ]
    poems = [(f"shijing:{n}", "\n".join(poem["content"])) for n, poem in enumerate(shijing, 1)]
    rng = random.Random(seed)
    return rng.sample(paras, 9) + rng.sample(poems, PASSAGES - 9)


class RapidV4Reader:
    """`rapidocr-onnxruntime` 1.4 (PP-OCRv4 mobile models, the older packaging): it pins opencv-python,
    so it runs from its own venv (`pip install rapidocr-onnxruntime==1.4.4`)."""

    name = "rapidocr-v4"

    def __init__(self, threads: int = 2) -> None:
        from rapidocr_onnxruntime import RapidOCR

        self._ocr = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)

    def read(self, image) -> list[str]:
        import numpy as np

        result, _ = self._ocr(np.asarray(image)[:, :, ::-1])
        return [str(r[1]) for r in (result or ())]


def engine(name: str, threads: int):
    if name == "rapidocr":
        from core.media.ocr_rapid import RapidReader

        return RapidReader(threads=threads)
    if name == "rapidocr-v4":
        return RapidV4Reader(threads=threads)
    if name == "tesseract":
        from core.media.ocr_tesseract import TesseractReader

        return TesseractReader(threads=threads, timeout_s=120.0)
    raise SystemExit(f"unknown engine {name}")


def read(args: argparse.Namespace) -> None:
    from core.media.ocr import PageReader
    from tests.media_images import looks, render_page, shown_text

    reader = PageReader(engine(args.engine, args.threads))
    rows = []
    load = os.getloadavg()
    items = [(pid, text, look) for pid, text in pick_passages() for look in looks()][:: args.stride][: args.limit]
    for i, (pid, text, look) in enumerate(items):
        photo = render_page(text, look)
        cpu, started = _cpu(), time.perf_counter()
        try:
            page = reader.read_sync(photo)
            got, error = page.text, None
        except Exception as exc:  # an engine that fails or times out on a photo scores nothing for it
            got, error = "", type(exc).__name__
        row = {"id": pid, "truth": shown_text(text, look), "text": got, "seconds": time.perf_counter() - started}
        row["error"] = error
        rows.append(row | {"cpu_s": _cpu() - cpu, "look": vars(look)})
        if i % 20 == 0:
            print(f"{args.engine}: {i}/{len(items)} {page.seconds:.2f}s", file=sys.stderr)
    out = {"engine": args.engine, "threads": args.threads, "load_before": load, "load_after": os.getloadavg()}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out | {"rows": rows}, ensure_ascii=False, indent=1), encoding="utf-8")


def _cpu() -> float:
    """CPU seconds of this process and its finished children (Tesseract runs as one)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row at a time."""
    import numpy as np

    if not a or not b:
        return max(len(a), len(b))
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    row = np.arange(len(b) + 1)
    idx = np.arange(len(b) + 1)
    for i, ch in enumerate(a, 1):
        sub = row[:-1] + (bb != ord(ch))
        new = np.empty_like(row)
        new[0] = i
        new[1:] = np.minimum(row[1:] + 1, sub)
        row = np.minimum.accumulate(new - idx) + idx  # insertions, left to right
    return int(row[-1])


def score(args: argparse.Namespace) -> None:
    import numpy as np

    from core.media.clean import _HAN_RE
    from core.media.compose import photo_question
    from core.retrieval.documents import load_corpus
    from core.retrieval.keyword import KeywordIndex

    index = KeywordIndex(load_corpus(_corpus_dir()))
    for file in args.files:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
        acc, hits, secs, cpu = [], 0, [], []
        for row in data["rows"]:
            truth = "".join(_HAN_RE.findall(row["truth"]))
            got = "".join(_HAN_RE.findall(row["text"]))
            acc.append(max(0.0, 1 - edit_distance(got, truth) / max(1, len(truth))))
            top = index.search(photo_question("", row["text"]), 1)
            hits += bool(top) and top[0][0] == row["id"]
            secs.append(row["seconds"])
            cpu.append(row.get("cpu_s", float("nan")))
        errors = sum(bool(row.get("error")) for row in data["rows"])
        p50, p95 = np.percentile(secs, [50, 95])
        c50, c95 = np.percentile(cpu, [50, 95])
        print(
            f"{data['engine']:12} n={len(acc)} failed={errors} char_acc={np.mean(acc):.3f} R@1={hits / len(acc):.3f} "
            f"p50={p50:.2f}s p95={p95:.2f}s cpu_p50={c50:.2f}s cpu_p95={c95:.2f}s threads={data['threads']} "
            f"load={data['load_before'][0]:.1f}->{data['load_after'][0]:.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    r = sub.add_parser("read")
    r.add_argument("--engine", default="rapidocr")
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--limit", type=int, default=None)
    r.add_argument("--stride", type=int, default=1, help="every Nth photo (a quicker, still even sample)")
    r.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("files", nargs="+")
    args = parser.parse_args()
    started = time.perf_counter()
    (read if args.step == "read" else score)(args)
    print(f"done in {time.perf_counter() - started:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
