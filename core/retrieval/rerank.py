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

from core.language.text import CJK, to_simplified
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


_PROMPT = """You rank passages from the Four Books (论语, 孟子, 大学, 中庸) and the Book of Songs (诗经) for a question.
Choose the passages that answer it: the one it quotes, retells or paraphrases, or those about the subject it asks;
not one that only shares a word with it. Answer with their numbers, best first, at most {keep}, separated by
commas (for example `3, 1, 7`), and nothing else; `0` if none answers it.

Question: {query}

Passages:
{passages}"""

_NUMBER = re.compile(r"(?<!\d)(?<!\d\.)\d{1,3}(?!\d|\.\d)")  # 7 in `7,` `[7]` `7.`, not in 1.5 or 2026
_SENTENCE_END = re.compile(r"[。！？；!?;]")


class LLMReranker:
    """One completion that lists the candidates answering the question, best first.

    Listing rather than scoring each of the pool keeps the answer to a few tokens (a real endpoint
    answers inside the search budget). The first choice scores `keep`, the next one less; candidates
    not listed score -1 and keep their fused order below. An answer with no number raises RerankError;
    `0` (none answers) leaves the fused order. A passage longer than `LLM_PASSAGE_CHARS` is shown as
    the window that holds most of the question's characters, not its opening.

    Args:
        llm: anything implementing core.llm.types.LLM.
        keep: at most this many numbers are asked for.
        max_tokens: completion budget.
    """

    name = "llm"

    def __init__(self, llm: LLM, *, keep: int = 10, max_tokens: int = 60):
        self._llm = llm
        self._keep = keep
        self._max_tokens = max_tokens

    async def score(self, query: str, passages: Sequence[Passage]) -> list[float]:
        wanted = question_characters(query)
        listing = "\n".join(f"[{i}] {p.ref} {excerpt(p.text, wanted)}" for i, p in enumerate(passages, 1))
        prompt = _PROMPT.format(query=query, passages=listing, keep=self._keep)
        completion = await self._llm.complete(
            [{"role": "user", "content": prompt}], temperature=0.0, max_tokens=self._max_tokens
        )
        return parse_choice(completion.text or "", len(passages), self._keep)


def parse_choice(text: str, n: int, keep: int) -> list[float]:
    """Scores for candidates 1..n from a list of numbers, best first: `keep`, `keep - 1`, … for the
    listed ones (out-of-range and repeated numbers skipped), -1 for the rest; RerankError without one."""
    numbers = [int(m.group()) for m in _NUMBER.finditer(text)]
    if not numbers:
        raise RerankError("no numbers in the reranker's answer")
    scores = [-1.0] * n
    rank = 0
    for number in numbers:
        if 1 <= number <= n and scores[number - 1] < 0 and rank < keep:
            scores[number - 1] = float(keep - rank)
            rank += 1
    return scores


def question_characters(query: str) -> frozenset[str]:
    """The distinct Chinese characters of `query`, in Simplified (what `excerpt` looks for)."""
    return frozenset(CJK.findall(to_simplified(query)))


def excerpt(text: str, wanted: frozenset[str], limit: int = LLM_PASSAGE_CHARS) -> str:
    """`text` on one line, or where it is longer than `limit`, the window of `limit` characters
    starting at a sentence that holds the most of the question's characters `wanted` (among equals,
    the one whose first sentence holds most; the opening when none holds any), marked … where cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    ends = [m.end() for m in _SENTENCE_END.finditer(flat) if m.end() < len(flat)]
    starts = [0, *ends]
    firsts = dict(zip(starts, [*ends, len(flat)]))  # where each start's own sentence ends

    hits = [(i, c) for i, c in enumerate(flat) if c in wanted]  # few: the question's characters only

    def held(start: int) -> tuple[int, int, int]:  # the window's, then its first sentence's, then earliest
        window = {c for i, c in hits if start <= i < start + limit}
        return len(window), len({c for i, c in hits if start <= i < firsts[start]}), -start

    best = max(starts, key=held)
    window = flat[best : best + limit]
    return ("…" if best else "") + window + ("…" if best + limit < len(flat) else "")
