"""The question a photo or a voice message becomes: what the engine then answers like text.

A photo: the caption (or, without one, "这是哪一篇？什么意思？") followed by the page's text under a
marker, cut to `MAX_PAGE_CHARS` — retrieval finds the passage from it and the model sees both. A voice
message: its transcript, shown back as the reply's first line so the person sees what was heard.
"""

from __future__ import annotations

DEFAULT_PHOTO_QUESTION = "这是哪一篇？什么意思？"
PAGE_MARK = "【图中文字】"
MAX_PAGE_CHARS = 600  # a page's worth; a 3,000-character screenshot is read from its start


def photo_question(caption: str, page_text: str) -> str:
    """The caption (or the default question) and the page text, as one message."""
    question = caption.strip() or DEFAULT_PHOTO_QUESTION
    return f"{question}\n\n{PAGE_MARK}\n{page_text[:MAX_PAGE_CHARS]}"


def heard_line(transcript: str) -> str:
    """The first line of a reply to a voice message: what Fuzi heard."""
    return f"🎙️「{transcript.strip()}」\n\n"
