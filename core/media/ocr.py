"""Photo → text: the `TextReader` port (one OCR engine), and `PageReader`, which the engine calls.

`PageReader.read(data)` checks and decodes the bytes (core/media/images.py), runs the engine in a
worker thread — one photo at a time per process, so OCR never takes both cores from the replies —
and cleans the lines into one block of text (core/media/clean.py). Engines live beside it:
`core/media/ocr_rapid.py` (RapidOCR, PP-OCR models inside the wheel: the default, chosen by the
benchmark in docs/media.md) and `core/media/ocr_tesseract.py` (Debian's Tesseract, compared there).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PIL import Image

OCR_TIMEOUT_S = 20.0  # one photo; past it the person is told the photo could not be read


class TextReader(Protocol):
    """One OCR engine: the text lines of an RGB image, top to bottom (CPU-bound, called in a thread)."""

    name: str

    def read(self, image: Image.Image) -> list[str]: ...


@dataclass(frozen=True)
class PageText:
    """What OCR found on one photo.

    Attributes:
        text: the cleaned text (lines joined, punctuation and known confusions fixed).
        han: how many Chinese characters it has (0: no Chinese text was found).
        seconds: decode + OCR time.
        width, height: the photo's size as sent.
        jpeg: the decoded photo re-encoded (long side ≤ 1600 px), when asked for (a vision model).
    """

    text: str
    han: int
    seconds: float
    width: int
    height: int
    jpeg: bytes = b""


class PageReader:
    """Reads photos with `engine`, one at a time (see the module docstring).

    Args:
        engine: the OCR engine.
        timeout_s: the most one photo may take, waiting for the worker included.
    """

    def __init__(self, engine: TextReader, timeout_s: float = OCR_TIMEOUT_S) -> None:
        self.engine = engine
        self._timeout_s = timeout_s
        self._one = asyncio.Semaphore(1)

    async def read(self, data: bytes, *, keep_jpeg: bool = False) -> PageText:
        """Raises ImageRejected (core/media/errors.py: not an image we read) or TimeoutError."""
        async with asyncio.timeout(self._timeout_s):
            async with self._one:
                return await asyncio.to_thread(self.read_sync, data, keep_jpeg=keep_jpeg)

    def read_sync(self, data: bytes, *, keep_jpeg: bool = False) -> PageText:
        """The same, on the calling thread (the benchmark uses it)."""
        import io

        from core.media.clean import clean_ocr, han_count  # its Han classes: 10 ms of a start's `re`
        from core.media.images import open_image  # Pillow loads only once a photo is read

        started = time.perf_counter()
        decoded = open_image(data)
        jpeg = io.BytesIO()
        try:
            text = clean_ocr(self.engine.read(decoded.image))
            if keep_jpeg:
                decoded.image.save(jpeg, "JPEG", quality=85)
        finally:
            decoded.image.close()
        seconds = time.perf_counter() - started
        return PageText(text, han_count(text), seconds, decoded.width, decoded.height, jpeg.getvalue())
