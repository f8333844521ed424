"""Rendered photos of a page: a passage in a Debian CJK font, with the faults a phone camera adds.

Used by the photo tests and by `benchmarks/ocr.py`. The fonts come from Debian's `fonts-noto-cjk`
(installed by `.ci/run` and `scripts/setup-media`); `font_path()` says where each face lies. Tests
about what happens around the reading (not the reading itself) use `blank_photo` and `SlowReader`,
which need no fonts.
"""

from __future__ import annotations

import io
import random
import time
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

NOTO = Path("/usr/share/fonts/opentype/noto")
# (file, face index of Simplified Chinese in the collection). Three looks: sans, serif, bold sans.
FONTS = {
    "sans": ("NotoSansCJK-Regular.ttc", 2),
    "serif": ("NotoSerifCJK-Regular.ttc", 2),
    "bold": ("NotoSansCJK-Bold.ttc", 2),
}
PHOTO_SIZE = (1280, 960)


def font_path(name: str) -> Path:
    return NOTO / FONTS[name][0]


def fonts_available() -> bool:
    """True when Debian's fonts-noto-cjk is installed (the tests that render pages need it)."""
    return all(font_path(n).exists() for n in FONTS)


@dataclass(frozen=True)
class Look:
    """How one photo is made: font, glyph size in pixels, rotation in degrees, blur radius, JPEG quality."""

    font: str = "sans"
    size: int = 40
    angle: float = 0.0
    blur: float = 0.0
    quality: int = 85


def _lines(text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for ch in paragraph:
            if font.getlength(line + ch) > width and line:
                lines.append(line)
                line = ""
            line += ch
        lines.append(line)
    return lines


def render_page(text: str, look: Look = Look(), size: tuple[int, int] = PHOTO_SIZE) -> bytes:
    """A JPEG photo of `text` (as much as fits) on a page, rotated, blurred and compressed as `look` says."""
    file, index = FONTS[look.font]
    font = ImageFont.truetype(str(NOTO / file), look.size, index=index)
    margin = size[0] // 12
    page = Image.new("RGB", size, (246, 241, 228))
    draw = ImageDraw.Draw(page)
    y, step = margin, int(look.size * 1.6)
    for line in _lines(text, font, size[0] - 2 * margin):
        if y + step > size[1] - margin:
            break
        draw.text((margin, y), line, font=font, fill=(30, 28, 26))
        y += step
    if look.angle:
        page = page.rotate(look.angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=(246, 241, 228))
    if look.blur:
        page = page.filter(ImageFilter.GaussianBlur(look.blur))
    out = io.BytesIO()
    page.save(out, "JPEG", quality=look.quality)
    return out.getvalue()


def shown_text(text: str, look: Look = Look(), size: tuple[int, int] = PHOTO_SIZE) -> str:
    """The part of `text` that `render_page` fits on the page (for character accuracy)."""
    file, index = FONTS[look.font]
    font = ImageFont.truetype(str(NOTO / file), look.size, index=index)
    margin, step = size[0] // 12, int(look.size * 1.6)
    rows = max(0, (size[1] - 2 * margin) // step)
    return "".join(_lines(text, font, size[0] - 2 * margin)[:rows])


def looks(seed: int = 22) -> list[Look]:
    """The benchmark grid: 3 fonts × 4 sizes, each with a random rotation in ±3°, blur, JPEG q60."""
    rng = random.Random(seed)
    return [
        Look(font, size, round(rng.uniform(-3, 3), 2), round(rng.uniform(0.4, 1.2), 2), 60)
        for font in FONTS
        for size in (28, 36, 48, 64)
    ]


def blank_photo(size: tuple[int, int] = (800, 600)) -> bytes:
    """A JPEG of an empty page (for an OCR engine that finds its text anyway: `SlowReader`)."""
    out = io.BytesIO()
    Image.new("RGB", size, (246, 241, 228)).save(out, "JPEG")
    return out.getvalue()


class SlowReader:
    """An OCR engine (core/media/ocr.py `TextReader`) that finds `lines` on any photo in `seconds`, as
    long as a real engine takes on a real photo: a reply's first message shows before it has read."""

    name = "slow"

    def __init__(self, *lines: str, seconds: float = 0.8) -> None:
        self.lines, self.seconds = list(lines), seconds

    def read(self, image: Image.Image) -> list[str]:
        time.sleep(self.seconds)  # called in a worker thread, like the real engines
        return self.lines
