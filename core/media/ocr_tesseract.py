"""Debian's Tesseract (`tesseract-ocr` with `tesseract-ocr-chi-sim`/`-chi-tra`) as a `TextReader`.

Run as a subprocess on PNG bytes through stdin and stdout: no temporary file. Compared with RapidOCR
in docs/media.md; kept so the comparison can be rerun (`python -m benchmarks.ocr --engine tesseract`).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image


class TesseractReader:
    """Tesseract with the simplified (and traditional) Chinese models, page segmentation mode 6."""

    name = "tesseract"

    def __init__(self, languages: str = "chi_sim", threads: int = 2, timeout_s: float = 30.0) -> None:
        if shutil.which("tesseract") is None:
            raise RuntimeError("tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-chi-sim)")
        self._args = ["tesseract", "stdin", "stdout", "-l", languages, "--psm", "6"]
        self._env = {"OMP_THREAD_LIMIT": str(threads), "PATH": "/usr/bin:/bin"}
        self._timeout_s = timeout_s

    def read(self, image: Image.Image) -> list[str]:
        png = io.BytesIO()
        image.save(png, "PNG")
        done = subprocess.run(
            self._args, input=png.getvalue(), capture_output=True, timeout=self._timeout_s, env=self._env, check=True
        )
        return [line for line in done.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
