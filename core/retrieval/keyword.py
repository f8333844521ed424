"""Keyword route: BM25 (rank-bm25's Okapi parameters and IDF) over an inverted index.

Tokens are jieba words **plus every single CJK character** (classical Chinese is mostly
one-character words, and jieba is trained on modern Chinese) plus lower-cased Latin words.
Only documents sharing at least one token with the query are scored: a document with zero score is
never ranked, so a route that matched nothing does not vote in fusion.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter, defaultdict

import jieba
import numpy as np
from rank_bm25 import BM25Okapi

from core.retrieval.documents import Passage, embedding_text
from core.text import CJK, has_cjk

jieba.setLogLevel(logging.WARNING)

_LATIN = re.compile(r"[A-Za-z0-9]+")


def tokenize(text: str) -> list[str]:
    """jieba words (CJK only, 2+ chars), single CJK characters, lower-cased Latin/number words."""
    tokens: list[str] = []
    for word in jieba.lcut(text):
        if len(word) > 1 and all(CJK.match(ch) for ch in word):
            tokens.append(word)
    tokens.extend(CJK.findall(text))
    tokens.extend(w.lower() for w in _LATIN.findall(text))
    return tokens


class _LuceneIdfOkapi(BM25Okapi):
    """Okapi BM25 with the non-negative IDF log(1 + (N - n + 0.5) / (n + 0.5)).

    rank-bm25's own IDF goes negative for a term in more than half the documents and is then
    floored at ε × mean IDF, which is itself negative in a small corpus: a matching document would
    score below zero and drop out. This IDF is always > 0, so every match counts a little.
    """

    def _calc_idf(self, nd):
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


class KeywordIndex:
    """In-memory BM25 index over passages; rebuilt from the LanceDB table on every start.

    Args:
        passages: the documents (their title line and text are indexed).
        k1, b: Okapi BM25 parameters.
    """

    def __init__(self, passages: list[Passage], *, k1: float = 1.5, b: float = 0.75):
        self.ids = [p.id for p in passages]
        self._corpus = np.array([p.corpus for p in passages])
        docs = [tokenize(embedding_text(p)) for p in passages]
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._idf: dict[str, float] = {}
        if not passages:
            return
        bm25 = _LuceneIdfOkapi(docs, k1=k1, b=b)  # IDF, avgdl and document lengths
        self._idf = dict(bm25.idf)
        lengths = np.asarray(bm25.doc_len, dtype=np.float64)
        norm = k1 * (1 - b + b * lengths / bm25.avgdl)
        acc: dict[str, tuple[list[int], list[float]]] = defaultdict(lambda: ([], []))
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                acc[term][0].append(i)
                acc[term][1].append(tf * (k1 + 1) / (tf + norm[i]))
        self._postings = {t: (np.asarray(d, dtype=np.int64), np.asarray(w)) for t, (d, w) in acc.items()}

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: str, limit: int, corpus: str = "all") -> list[tuple[str, float]]:
        """(id, score) of documents sharing a token with the query, best first, ties by id."""
        scores = np.zeros(len(self.ids), dtype=np.float64)
        for term, qtf in Counter(tokenize(query)).items():
            posting = self._postings.get(term)
            if posting is not None:
                docs, weights = posting
                scores[docs] += weights * (self._idf[term] * qtf)
        if corpus != "all":
            scores[self._corpus != corpus] = 0.0
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > limit:
            # Keep everything tied with the limit-th score, then cut after a deterministic sort.
            threshold = np.partition(scores[candidates], -limit)[-limit]
            candidates = candidates[scores[candidates] >= threshold]
        hits = [(self.ids[d], float(scores[d])) for d in candidates.tolist()]
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits[:limit]


class VerbatimIndex:
    """Finds the passages that contain a squashed quote (punctuation and spaces removed).

    All squashed texts are joined into one string, so a lookup is a few `str.find` calls in C.
    """

    _SEP = "\x00"

    def __init__(self, passages: list[Passage]):
        from core.retrieval.fusion import squash

        self.ids = [p.id for p in passages]
        self._corpus = [p.corpus for p in passages]
        self._texts = {p.id: p.text for p in passages}
        self._starts: list[int] = []
        parts, pos = [], 0
        for p in passages:
            text = squash(p.text)
            self._starts.append(pos)
            parts.append(text)
            pos += len(text) + 1
        self._blob = self._SEP.join(parts)

    def containing(self, key: str, corpus: str = "all", limit: int = 50) -> list[str]:
        """Ids of passages whose squashed text contains `key`, in corpus order (at most `limit`)."""
        import bisect

        found: list[str] = []
        if not key:
            return found
        start = self._blob.find(key)
        while start != -1 and len(found) < limit:
            i = bisect.bisect_right(self._starts, start) - 1
            if corpus == "all" or self._corpus[i] == corpus:
                found.append(self.ids[i])
            nxt = self._starts[i + 1] if i + 1 < len(self._starts) else len(self._blob)
            start = self._blob.find(key, nxt)
        return found

    def aligned(self, key: str, ids: list[str]) -> set[str]:
        """Those of `ids` where `key` covers whole clauses (执子之手，与子偕老 — not 掺执子之手兮)."""
        import unicodedata

        pattern = re.compile(r"(?:^|\|)" + r"\|?".join(map(re.escape, key)) + r"(?:\||$)")
        out = set()
        for doc_id in ids:
            text = unicodedata.normalize("NFKC", self._texts.get(doc_id, "")).lower()
            marked = re.sub(r"[^\w]+|_", "|", text)
            if pattern.search(marked):
                out.add(doc_id)
        return out


# Scaffolding of modern-Chinese questions: they carry no content and match the classics by accident
# (怎 么 看 的 …). Longest first. Bare 中 and 里 stay: 中庸, 里仁 are content.
QUESTION_WORDS = (
    "为什么", "怎么样", "有没有", "能不能", "诗经里", "诗经中", "论语里", "论语中", "怎么", "怎样", "什么",
    "如何", "哪些", "哪个", "哪首", "是否", "看待", "看法", "评价", "认为", "主张", "关于", "有关", "描写",
    "描述", "讲述", "提到", "说过", "说了", "应该", "诗经", "论语", "孔子", "夫子", "一首", "的诗", "的", "了",
    "吗", "呢", "吧", "看",
)
_MODERN_MARKERS = re.compile("的|吗|呢|什么|怎么|怎样|如何|为什么|哪|看待|看法|评价|认为|关于|描写|能不能|有没有|是否")


def is_modern_question(query: str) -> bool:
    """True when the query reads as modern Chinese (的, 吗, 什么, 怎么 …), not as a classical quote."""
    return bool(_MODERN_MARKERS.search(query))


def strip_question_words(query: str) -> str:
    """The content words of a modern-Chinese question (孔子怎么看管仲 → 管仲); other text unchanged.

    Only queries with a modern marker (的, 吗, 什么, 怎么 …) are touched, so classical quotes pass
    through whole; a question that is nothing but scaffolding is returned unchanged.
    """
    if not _MODERN_MARKERS.search(query):
        return query
    stripped = query
    for word in QUESTION_WORDS:
        stripped = stripped.replace(word, " ")
    return stripped if has_cjk(stripped) else query
