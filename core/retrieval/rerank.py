"""Rerankers behind one port: `none` (offline default), `cross-encoder` and `llm`.

A reranker scores (query, passage) pairs; the retriever orders by that score and keeps top k.
Any error, timeout or empty answer makes the retriever fall back to the fused order.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Sequence
from typing import Protocol

from core.llm.types import LLM
from core.retrieval.documents import Passage

LLM_PASSAGE_CHARS = 300


class RerankError(Exception):
    """The reranker gave no usable scores (error or empty/unparseable answer)."""


class Reranker(Protocol):
    """Scores each candidate for the query; higher is more relevant.

    Attributes:
        name: "cross-encoder:<model>", "llm", … (for logs and benchmarks).
    """

    name: str

    async def score(self, query: str, passages: Sequence[Passage]) -> list[float]: ...


class CrossEncoderReranker:
    """sentence-transformers `CrossEncoder` (e.g. BAAI/bge-reranker-v2-m3 or a local folder).

    Args:
        model_name_or_path: hub name or saved model folder.
        max_chars: passage text is cut to this many characters before scoring.
    """

    def __init__(self, model_name_or_path: str, *, device: str = "cpu", max_chars: int = 512):
        from sentence_transformers import CrossEncoder

        self._model = CrossEncoder(str(model_name_or_path), device=device)
        self._lock = threading.Lock()
        self._max_chars = max_chars
        self.name = f"cross-encoder:{model_name_or_path}"

    async def score(self, query: str, passages: Sequence[Passage]) -> list[float]:
        pairs = [(query, f"{p.title}\n{p.text}"[: self._max_chars]) for p in passages]
        return await asyncio.to_thread(self._predict, pairs)

    def _predict(self, pairs: list[tuple[str, str]]) -> list[float]:
        with self._lock:
            scores = self._model.predict(pairs, convert_to_numpy=True, show_progress_bar=False)
        return [float(s) for s in scores]


_PAIR = re.compile(r"\[?\**\s*(\d{1,3})\s*\**\]?\s*[:：=\-—]\s*\**\s*(\d{1,2}(?:\.\d+)?)(?![\d.])")

_PROMPT = """You rank passages from the Four Books (论语, 孟子, 大学, 中庸) and the Book of Songs (诗经) for a question.
Rate each passage 0-10 for how well it answers or matches the question (10 = exactly it, 0 = unrelated).
A passage about the subject asked rates high; one that only shares a word with the question rates low.
Answer with one line per passage, formatted `<number>: <score>`, and nothing else.

Question: {query}

Passages:
{passages}"""


class LLMReranker:
    """One batched completion scoring every candidate 0-10, parsed robustly.

    Lines like `1: 8`, `[2] = 7.5`, `3 - 0` are accepted; candidates the answer skips get -1.
    An answer with no parseable score raises RerankError.

    Args:
        llm: anything implementing core.llm.types.LLM.
        max_tokens: completion budget.
    """

    name = "llm"

    def __init__(self, llm: LLM, *, max_tokens: int = 400):
        self._llm = llm
        self._max_tokens = max_tokens

    async def score(self, query: str, passages: Sequence[Passage]) -> list[float]:
        listing = "\n".join(
            f"[{i}] {p.ref} {' '.join(p.text.split())[:LLM_PASSAGE_CHARS]}" for i, p in enumerate(passages, 1)
        )
        prompt = _PROMPT.format(query=query, passages=listing)
        completion = await self._llm.complete(
            [{"role": "user", "content": prompt}], temperature=0.0, max_tokens=self._max_tokens
        )
        return parse_scores(completion.text or "", len(passages))


def parse_scores(text: str, n: int) -> list[float]:
    """Scores 0-10 for candidates 1..n from an LLM answer; missing ones get -1."""
    scores = [-1.0] * n
    found = False
    for m in _PAIR.finditer(text):
        idx, value = int(m.group(1)), float(m.group(2))
        if 1 <= idx <= n and 0 <= value <= 10:
            scores[idx - 1] = value
            found = True
    if not found:
        raise RerankError("no scores in the reranker's answer")
    return scores
