"""Open an uploaded image safely: what it is, how big, and a decoded copy small enough for OCR.

Pillow reads only the header first, so a decompression bomb (a small file that claims a huge
canvas), a 50-megapixel photo, an animated sticker, a PDF and a corrupt JPEG are told apart before
any pixel is decoded. A large JPEG is decoded at a reduced scale (`Image.draft`), so a 50 MP phone
photo costs what a 3 MP one does. Nothing touches the disk: the bytes stay in memory.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from core.media.errors import ImageRejected

FORMATS = frozenset({"JPEG", "PNG", "WEBP", "BMP", "GIF", "TIFF"})
MAX_PIXELS = 64_000_000  # the header's claim; above it the image is refused before decoding
MAX_SIDE = 1600  # the long side OCR sees (docs/media.md: accuracy and time by size)


@dataclass(frozen=True)
class Decoded:
    """An image ready for OCR: RGB pixels at most `MAX_SIDE` on the long side, and its original size."""

    image: Image.Image
    width: int
    height: int


def _header(data: bytes) -> Image.Image:
    if data[:5] == b"%PDF-":
        raise ImageRejected("not_image", "pdf")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageRejected("too_large", "decompression bomb") from exc
    except UnidentifiedImageError as exc:
        raise ImageRejected("not_image") from exc
    if image.format not in FORMATS:
        raise ImageRejected("not_image", str(image.format))
    return image


def open_image(data: bytes, max_side: int = MAX_SIDE) -> Decoded:
    """Check and decode `data`; raises ImageRejected with the reason a person can be told."""
    image = _header(data)
    width, height = image.size
    if width * height > MAX_PIXELS or width <= 0 or height <= 0:
        raise ImageRejected("too_large", f"{width}x{height}")
    if getattr(image, "n_frames", 1) > 1:
        raise ImageRejected("animated")
    if image.format == "JPEG":
        image.draft("RGB", (max_side, max_side))  # decode at 1/2, 1/4 or 1/8 scale when that suffices
    try:
        image.load()
        rgb = image.convert("RGB")
    except (OSError, SyntaxError, ValueError) as exc:  # truncated or broken data
        raise ImageRejected("corrupt", type(exc).__name__) from exc
    finally:
        image.close()
    if max(rgb.size) > max_side:
        rgb.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    return Decoded(rgb, width, height)
