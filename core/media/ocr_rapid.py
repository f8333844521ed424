"""RapidOCR as a `TextReader`: PaddleOCR's PP-OCR models on onnxruntime, the models inside the wheel.

`RapidReader` is Fuzi's OCR engine (`rapidocr` 3.x: PP-OCRv6 small detection and recognition, the
v2 direction classifier; chosen by the benchmark in docs/media.md). Every model path is given
explicitly, pointing into the installed package, so nothing is ever downloaded at run time.
The older packaging (`rapidocr-onnxruntime` 1.4, PP-OCRv4) is compared in `benchmarks/ocr.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

_MODELS = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}


def rapidocr_available() -> bool:
    """True when the `ocr` extra (rapidocr + onnxruntime) is installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("rapidocr", "onnxruntime"))


class RapidReader:
    """RapidOCR 3 on onnxruntime with `threads` threads per model run.

    Args:
        threads: onnxruntime intra-op threads (2 = this machine's cores; OCR runs one photo at a time).
    """

    name = "rapidocr"

    def __init__(self, threads: int = 2) -> None:
        import rapidocr
        from rapidocr import RapidOCR

        models = Path(rapidocr.__file__).parent / "models"
        params: dict[str, Any] = {key: str(models / file) for key, file in _MODELS.items()}
        params |= {
            "Global.log_level": "warning",
            # Photos of pages are upright: the 180° direction classifier costs time and finds nothing.
            "Global.use_cls": False,
            # Detection on at most 960 px on the long side: 28 px glyphs on a 1280×960 photo still read,
            # for less CPU than the default (short side ≥ 736); docs/media.md.
            "Det.limit_type": "max",
            "Det.limit_side_len": 960,
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
        self._ocr = RapidOCR(params=params)

    def read(self, image: Image.Image) -> list[str]:
        import numpy as np

        result = self._ocr(np.asarray(image)[:, :, ::-1])  # RGB → the BGR order OpenCV uses
        return [str(t) for t in (getattr(result, "txts", None) or ())]
