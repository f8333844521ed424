"""OCR text → a question's context: line breaks joined, punctuation made Chinese, known confusions fixed.

A photographed page wraps lines in the middle of sentences, OCR engines return ASCII punctuation
next to Chinese text, and a few glyphs are confused often enough to hurt retrieval (曰 read as 日 after
子/对/问 — 子曰 opens half the Analects). Everything here is plain string work, measured on the
rendered pages of `benchmarks/ocr.py` (docs/media.md).
"""

from __future__ import annotations

import re

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RE = re.compile(f"[{_HAN}]")
_WIDE = f"{_HAN}，。、；：？！“”‘’（）《》〈〉「」『』…—"
# ASCII punctuation an engine puts between Chinese characters, and its full-width form.
_PUNCT = str.maketrans({",": "，", ";": "；", ":": "：", "?": "？", "!": "！", "(": "（", ")": "）"})
_SPACE_BETWEEN_WIDE = re.compile(f"(?<=[{_WIDE}])\\s+(?=[{_WIDE}])")
_PERIOD = re.compile(f"(?<=[{_HAN}])\\.(?=\\s|$|[{_HAN}“”])")
# 曰 (to say) misread as 日 (sun): before the colon or quote of speech (日 there is never "sun"), and
# after 子 (子日 is always 子曰).
_YUE = re.compile("日(?=\\s*[：:“「])|(?<=子)日")
_LINE_TRAIL = re.compile(r"[ \t]+\n")


def han_count(text: str) -> int:
    """How many Chinese characters `text` has."""
    return len(_HAN_RE.findall(text))


def clean_ocr(lines: list[str] | str) -> str:
    """The recognised lines as one block of Chinese text (see the module docstring)."""
    raw = "\n".join(lines) if isinstance(lines, list) else lines
    text = _LINE_TRAIL.sub("\n", raw.replace("\r", "\n")).translate(_PUNCT)
    text = _PERIOD.sub("。", text)
    text = _SPACE_BETWEEN_WIDE.sub("", text)  # also joins the lines a page wrapped mid-sentence
    text = _YUE.sub("曰", text)
    text = re.sub(r"\n{2,}", "\n", text)
    return text.strip()
