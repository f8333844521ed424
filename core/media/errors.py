"""Why a photo is refused, as one word for the one-line reply (no Pillow import: it loads lazily)."""

from __future__ import annotations

from typing import Literal

ImageProblem = Literal["not_image", "corrupt", "animated", "too_large"]


class ImageRejected(Exception):
    """The bytes are not an image Fuzi reads; `problem` says why (one word, for the one-line reply)."""

    def __init__(self, problem: ImageProblem, detail: str = "") -> None:
        super().__init__(f"{problem}: {detail}" if detail else problem)
        self.problem: ImageProblem = problem
