"""Keyword route: Okapi BM25 (bm25s: a sparse matrix of precomputed term scores) and the verbatim index.

Tokens are **every single CJK character plus every pair of neighbouring CJK characters within a run**
(classical Chinese is mostly one-character words; character bigrams stand in for words without a
dictionary trained on modern Chinese) plus lower-cased Latin words. `tokenizer="jieba"` keeps the v1
tokens (jieba words of 2+ characters instead of bigrams) for comparison. Only documents sharing at
least one token with the query are scored: a document with zero score is never ranked, so a route
that matched nothing does not vote in fusion.

The BM25 index is saved with bm25s's own `save` and memory-mapped back by its `load`, beside the
verbatim index's arrays, so a snapshot keyed by the table's content is read instead of re-tokenising
the corpus at every start (core/retrieval/snapshot.py). Measured on the 2-core EPYC machine against
the hand-written index it replaced: the same scores (every retrieval eval figure unchanged), a
search over the dev queries 252–257 µs against 302–459, a build of the 817 passages 157–184 ms
against 102–119 (once per content: the snapshot keeps it). A saved index is scored by `SavedBM25`, bm25s's
own scoring over its saved arrays, so a start does not import bm25s (55 ms of CPU, 160 ms where scipy
is installed: the `st` and `train` extras, which bm25s then imports); building an index does.
"""

from __future__ import annotations

import bisect
import json
import logging
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from core.books import books_in
from core.language.text import CJK, has_cjk
from core.retrieval.documents import Passage, embedding_text

if TYPE_CHECKING:
    import bm25s

logging.getLogger("bm25s").setLevel(logging.WARNING)  # a debug line per index built, whatever the app's level

_LATIN = re.compile(r"[A-Za-z0-9]+")
_CJK_RUN = re.compile(CJK.pattern + "+")
TOKENIZERS = ("bigram", "jieba")


def tokenize(text: str, tokenizer: str = "bigram") -> list[str]:
    """Single CJK characters, CJK bigrams (or jieba words) and lower-cased Latin/number words."""
    tokens: list[str] = []
    if tokenizer == "jieba":
        import logging

        import jieba

        jieba.setLogLevel(logging.WARNING)
        tokens.extend(w for w in jieba.lcut(text) if len(w) > 1 and all(CJK.match(ch) for ch in w))
        tokens.extend(CJK.findall(text))
    else:
        for run in _CJK_RUN.findall(text):
            tokens.extend(run)
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    tokens.extend(w.lower() for w in _LATIN.findall(text))
    return tokens


class KeywordIndex:
    """BM25 (k1, b) with Lucene's non-negative IDF log(1 + (N - n + 0.5) / (n + 0.5)), over Fuzi's tokens.

    The classic Okapi IDF goes negative for a term in more than half the documents (and rank-bm25's
    ε floor is then itself negative in a small corpus): a matching document would score below zero
    and drop out. This IDF is always > 0, so every match counts a little. bm25s's "lucene" term
    weight leaves out Okapi's constant (k1 + 1) factor; scores are multiplied back by it, so they are
    the Okapi figures the fusion and the gloss route were tuned on. A term the query repeats counts
    as often as it occurs.

    Args:
        passages: the documents (their title line and text are indexed).
        k1, b: Okapi BM25 parameters.
        tokenizer: "bigram" (default) or "jieba".
        index: makes the BM25 of the token lists (default `bm25_index`; the gloss route's collections
            are read from saved files when their tokens are unchanged: core/retrieval/bm25_files.py).
    """

    def __init__(
        self,
        passages: list[Passage],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        tokenizer: str = "bigram",
        index: Callable[..., bm25s.BM25 | SavedBM25] | None = None,
    ):
        if tokenizer not in TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {TOKENIZERS}")
        self.tokenizer = tokenizer
        self.ids = [p.id for p in passages]
        self._corpus = np.array([p.corpus for p in passages])
        self._bm25 = (index or bm25_index)([tokenize(embedding_text(p), tokenizer) for p in passages], k1=k1, b=b)

    def save(self, folder: Path) -> None:
        """Write the index into `folder` (bm25s's files plus ids, corpora and tokenizer); only a built one."""
        if isinstance(self._bm25, SavedBM25):
            raise TypeError("a read index is saved already: save the index that was built")
        self._bm25.save(str(folder / "bm25"), show_progress=False)
        np.save(folder / "kw_corpus.npy", self._corpus)
        meta = {"ids": self.ids, "tokenizer": self.tokenizer}
        (folder / "keyword.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> KeywordIndex:
        """The index `save` wrote, its score matrix memory-mapped, without tokenising anything."""
        index = cls.__new__(cls)
        meta = json.loads((folder / "keyword.json").read_text(encoding="utf-8"))
        index.ids, index.tokenizer = meta["ids"], meta["tokenizer"]
        index._corpus = np.load(folder / "kw_corpus.npy", allow_pickle=False)
        index._bm25 = SavedBM25.load(folder / "bm25")
        return index

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query: str, corpus: str = "all") -> np.ndarray:
        """Every document's BM25 score for `query`, in document order (0 for no shared token)."""
        scores = okapi_scores(self._bm25, tokenize(query, self.tokenizer), len(self.ids)).astype(np.float32)
        if corpus != "all":
            scores[~np.isin(self._corpus, books_in(corpus))] = 0.0
        return scores

    def search(self, query: str, limit: int, corpus: str = "all") -> list[tuple[str, float]]:
        """(id, score) of documents sharing a token with the query, best first, ties by id."""
        scores = self.scores(query, corpus)
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > limit:
            # Keep everything tied with the limit-th score, then cut after a deterministic sort.
            threshold = np.partition(scores[candidates], -limit)[-limit]
            candidates = candidates[scores[candidates] >= threshold]
        hits = [(self.ids[d], float(scores[d])) for d in candidates.tolist()]
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits[:limit]


def bm25_index(documents: list[list[str]], *, k1: float = 1.5, b: float = 0.75, dtype: str = "float32") -> bm25s.BM25:
    """A bm25s index of token lists with Lucene's IDF (shared by the keyword and the gloss routes)."""
    import bm25s

    index = bm25s.BM25(k1=k1, b=b, method="lucene", idf_method="lucene", dtype=dtype)
    if documents:
        index.index(documents, create_empty_token=False, show_progress=False)
    return index


class SavedBM25:
    """An index bm25s saved (`BM25.save`), memory-mapped and scored as bm25s scores it, without bm25s:
    a document's score is the sum of its precomputed term scores (the CSC matrix's column of each
    query token), added in query order, in the index's dtype (`BM25.get_scores_from_ids`)."""

    def __init__(self, params: dict, vocab: dict[str, int], data: np.ndarray, indices: np.ndarray, indptr: np.ndarray):
        if params.get("method") in ("bm25l", "bm25+"):  # scored with a non-occurrence array: not written here
            raise ValueError(f"a saved {params['method']} index is not read without bm25s")
        self.k1, self.dtype, self.int_dtype = params["k1"], params["dtype"], params["int_dtype"]
        self.num_docs = params["num_docs"]
        self.vocab_dict = vocab
        self._data, self._indices, self._indptr = data, indices, indptr

    @classmethod
    def load(cls, folder: Path) -> SavedBM25:
        """The index in `folder`: its parameters and vocabulary read, its arrays memory-mapped."""
        params = json.loads((folder / "params.index.json").read_text(encoding="utf-8"))
        vocab = json.loads((folder / "vocab.index.json").read_text(encoding="utf-8"))
        data, indices, indptr = (
            np.load(folder / f"{name}.csc.index.npy", allow_pickle=False, mmap_mode="r")
            for name in ("data", "indices", "indptr")
        )
        return cls(params, vocab, data, indices, indptr)

    def get_tokens_ids(self, tokens: list[str]) -> list[int]:
        return [self.vocab_dict[token] for token in tokens if token in self.vocab_dict]

    def get_scores_from_ids(self, token_ids: list[int]) -> np.ndarray:
        ids = np.asarray(token_ids, dtype=np.dtype(self.int_dtype))
        if int(ids.max(initial=0)) >= len(self._indptr) - 1:
            raise ValueError("a token id beyond the saved index")
        scores = np.zeros(self.num_docs, dtype=np.dtype(self.dtype))
        for start, end in zip(self._indptr[ids], self._indptr[ids + 1], strict=True):
            np.add.at(scores, self._indices[start:end], self._data[start:end])
        return scores


def okapi_scores(index: bm25s.BM25 | SavedBM25, tokens: list[str], n: int) -> np.ndarray:
    """Okapi BM25 of every document for `tokens` (each occurrence counts): bm25s's Lucene score times
    (k1 + 1), the factor Lucene leaves out; zeros where no token is in the index."""
    ids = index.get_tokens_ids(tokens) if n and getattr(index, "vocab_dict", None) else []
    if not ids:
        return np.zeros(n, dtype=np.dtype(index.dtype))
    return index.get_scores_from_ids(ids) * (index.k1 + 1)


class VerbatimIndex:
    """Finds the passages that contain a squashed quote (punctuation and spaces removed).

    All squashed texts are joined into one string, so a lookup is a few `str.find` calls in C.

    Args:
        passages: the documents.
        texts: id -> text lookup for `aligned` (defaults to the passages' own texts).
    """

    _SEP = "\x00"

    def __init__(self, passages: list[Passage], texts=None):
        from core.retrieval.fusion import squash

        self.ids = [p.id for p in passages]
        self._corpus = [p.corpus for p in passages]
        self._texts = texts if texts is not None else {p.id: p.text for p in passages}
        self._starts: list[int] = []
        parts, pos = [], 0
        for p in passages:
            text = squash(p.text)
            self._starts.append(pos)
            parts.append(text)
            pos += len(text) + 1
        self._blob = self._SEP.join(parts)

    def arrays(self) -> dict[str, np.ndarray]:
        """The index as plain arrays (for a snapshot; ids and corpora are the keyword index's)."""
        return {
            "vb_blob": np.frombuffer(self._blob.encode("utf-8"), dtype=np.uint8),
            "vb_starts": np.asarray(self._starts, dtype=np.int64),
        }

    @classmethod
    def from_arrays(cls, arrays, ids: list[str], corpus: list[str], texts) -> VerbatimIndex:
        index = cls.__new__(cls)
        index.ids, index._corpus, index._texts = ids, corpus, texts
        index._blob = arrays["vb_blob"].tobytes().decode("utf-8")
        index._starts = arrays["vb_starts"].tolist()
        return index

    def containing(self, key: str, corpus: str = "all", limit: int = 50) -> list[str]:
        """Ids of passages whose squashed text contains `key`, in corpus order (at most `limit`)."""
        found: list[str] = []
        if not key:
            return found
        books = books_in(corpus)
        start = self._blob.find(key)
        while start != -1 and len(found) < limit:
            i = bisect.bisect_right(self._starts, start) - 1
            if corpus == "all" or self._corpus[i] in books:
                found.append(self.ids[i])
            nxt = self._starts[i + 1] if i + 1 < len(self._starts) else len(self._blob)
            start = self._blob.find(key, nxt)
        return found

    def aligned(self, key: str, ids: list[str]) -> set[str]:
        """Those of `ids` where `key` covers whole clauses (执子之手，与子偕老 — not 掺执子之手兮)."""
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
    "为什么",
    "怎么样",
    "有没有",
    "能不能",
    "诗经里",
    "诗经中",
    "论语里",
    "论语中",
    "怎么",
    "怎样",
    "什么",
    "如何",
    "哪些",
    "哪个",
    "哪首",
    "是否",
    "看待",
    "看法",
    "评价",
    "认为",
    "主张",
    "关于",
    "有关",
    "描写",
    "描述",
    "讲述",
    "提到",
    "说过",
    "说了",
    "应该",
    "诗经",
    "论语",
    "孔子",
    "夫子",
    "一首",
    "的诗",
    "的",
    "了",
    "吗",
    "呢",
    "吧",
    "看",
)
_MODERN_MARKERS = re.compile(
    "的|吗|呢|什么|怎么|怎样|如何|为什么|哪|看待|看法|评价|认为|关于|描写|能不能|有没有|是否|想不想|要不要|该不该|是不是|会不会"
)


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
    stripped = without_question_words(query)
    return stripped if has_cjk(stripped) else query


def without_question_words(text: str) -> str:
    """`text` with each of QUESTION_WORDS replaced by a space, whatever else it says."""
    for word in QUESTION_WORDS:
        text = text.replace(word, " ")
    return text
