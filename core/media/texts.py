"""What Fuzi says about a photo, voice message or file it cannot answer: one line, Chinese then English.

Kept beside the media code (core/texts holds the engine's own replies); every problem word the
intake can meet has its line here, and `tests/test_media_intake.py` checks that none is missing.
"""

from __future__ import annotations

from typing import Literal

MediaProblem = Literal[
    "not_image",  # a PDF, a document, something Pillow does not open
    "corrupt",  # a broken or truncated image
    "animated",  # an animated sticker or GIF
    "sticker",  # a still sticker: a picture, not a page
    "too_large",  # over the size limit, or a decompression bomb
    "no_text",  # OCR found no Chinese text
    "no_ocr",  # this install has no OCR engine (the `ocr` extra)
    "ocr_failed",  # OCR took too long or failed
    "voice_off",  # no transcription endpoint configured
    "voice_too_long",  # over MediaLimits.max_voice_s (5 min) or the size limit (core/media/intake.py)
    "voice_failed",  # the endpoint failed or heard nothing
    "download_failed",  # the platform did not hand over the file
]

LINES: dict[str, tuple[str, str]] = {
    "not_image": (
        "夫子只读图片（照片、截图），不读此类文件。",
        "I read photos and screenshots, not this kind of file.",
    ),
    "corrupt": (
        "此图已损坏，打不开，请重新拍一张。",
        "This image is damaged and cannot be opened; please send it again.",
    ),
    "animated": ("动图无字可读，请发一张书页的照片。", "An animation has no page to read; send a photo of the page."),
    "sticker": (
        "贴纸无字可读，请用文字或书页照片提问。",
        "A sticker has no text to read; ask in words or with a photo of a page.",
    ),
    "too_large": (
        "图太大（上限 {mb} MB、6400 万像素），请缩小后再发。",
        "The image is too large (limit {mb} MB, 64 megapixels); please send a smaller one.",
    ),
    "no_text": ("图中未见汉字，夫子无从读起。", "I found no Chinese text in this image."),
    "no_ocr": ("此处夫子未装识字之具，暂不能读图。", "This Fuzi has no OCR installed and cannot read images."),
    "ocr_failed": ("此图一时读不出，请换一张更清楚的。", "I could not read this image in time; try a clearer one."),
    "voice_off": (
        "夫子此处不听语音，请用文字提问。",
        "Voice messages are not enabled here; please type your question.",
    ),
    "voice_too_long": (
        "语音太长（上限 {seconds} 秒），请说得简短些。",
        "The voice message is too long (limit {seconds} s); please keep it short.",
    ),
    "voice_failed": (
        "这段语音没听清，请再说一遍或改用文字。",
        "I could not make out this voice message; please try again or type it.",
    ),
    "download_failed": ("文件取不下来，请再发一次。", "I could not download the file; please send it again."),
}


def media_line(problem: str, **fields: object) -> str:
    """The one-line answer for `problem`, both languages."""
    zh, en = LINES[problem]
    return f"{zh.format(**fields)} {en.format(**fields)}"
