"""Passage glosses: what each passage says, in plain English and modern Chinese, as one more route.

The corpus is classical Chinese. An English question ("What did Confucius say about friends who
lie?") shares no word with it, and a modern-Chinese paraphrase shares few characters; both share
many with a plain gloss of the passage ("Zengzi examines himself daily: was he loyal, was he
trustworthy to his friends …"; "曾子说每天反省自己…"). `data/glosses/*.jsonl` holds one line per
glossed passage, `{"id", "en", "zh"}` (source and review: data/glosses/README.md); a passage
without a gloss simply has none.

`data/glosses/stanzas/*.jsonl` adds a rendering of every stanza of every poem of two or more
stanzas, `{"id", "stanza", "en", "zh"}`: a pasted translation of one stanza of a long poem shares its
words with that stanza's rendering, not with the poem's one-line summary. The stanzas are a BM25
collection of their own and a poem scores as the better of its gloss and its best stanza; a stanza
counts only for a Chinese query at least as long as the stanza itself, and never for an English question
(`is_question`): questions describe passages, renderings reproduce them (docs/retrieval.md).
`data/glosses/segments/*.jsonl`, `{"id", "segment", "en", "zh"}`, does the same for the segments of
the long prose chapters (core/retrieval/segments.py): one story of a forty-line chapter of the Mencius.

`GlossIndex` searches them: an English query by Okapi BM25 (`WordBM25`, k1 1.5, b 0.75) over the English glosses
(lowercase, stopwords dropped, light suffix stemming, two-word pinyin names of the glossary joined:
"Zi Lu" and "Zilu" are one token); a modern-Chinese question, paraphrase or translation (not a
classical quote: `translate.wants_translation`, or modern prose without a question word, told from
the books' own lines by how few of its character pairs occur in any passage: `is_modern_prose`) by
the keyword route's own BM25 and tokenizer over the modern-Chinese glosses, its question words
stripped. The retriever fuses the result as the
route `gloss`; any other query does not run it, so its results are what they were without glosses.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import structlog

from core.books import books_in
from core.language.text import cjk_count
from core.retrieval.asks import ASK_DIR, AskError, load_asks
from core.retrieval.bm25_files import saved_or_built
from core.retrieval.documents import Passage
from core.retrieval.fusion import query_language, squash
from core.retrieval.glossary import PHRASES
from core.retrieval.jsonl import jsonl_rows
from core.retrieval.keyword import KeywordIndex, SavedBM25, bm25_index, okapi_scores, strip_question_words
from core.retrieval.segments import parts
from core.retrieval.snapshot import PassageTable
from core.retrieval.translate import wants_translation

if TYPE_CHECKING:
    import bm25s

    from core.retrieval.gloss_vectors import GlossVectors

BM25Maker = Callable[..., "bm25s.BM25 | SavedBM25"]  # (documents, k1=, b=, dtype=) → an index (keyword.bm25_index)

log = structlog.get_logger(__name__)

GLOSS_DIR = Path(str(resources.files("data") / "glosses"))
STANZA_DIR = "stanzas"  # the stanza renderings, a folder of GLOSS_DIR
SEGMENT_DIR = "segments"  # the long chapters' segment renderings (core/retrieval/segments.py)
MAX_EN_WORDS = 80  # generous bounds: a gloss is 1–2 sentences (spec: ≤ 45 words, ≤ 60 字)
MAX_ZH_CHARS = 120
QUOTED_CHARS = 4  # a modern-Chinese query with this many characters of a passage in a row quotes it
# Modern prose without a question word (a pasted 白话 translation: 君子说话要迟钝谨慎，做事要勤快敏捷。):
# at least PROSE_MIN_PAIRS neighbouring-character pairs, fewer than PROSE_MAX_SHARE of which occur in
# any passage. Classical lines and names are made of the books' own pairs (dev quotes: all of them;
# misquotes below one half: none with six pairs or more); translations reuse few (dev: ≤ 0.36).
PROSE_MIN_PAIRS = 6
PROSE_MAX_SHARE = 0.5
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")

STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for from with about into over under as than then so
    is are was were be been being am do does did done have has had having it its this that these those
    there here what which who whom whose when where why how i me my we us our you your he him his she
    her they them their one ones not no nor can could would should shall will may might must also
    just very more most much many such any some all each every other own same too only say says said
    tell tells told ask asks asked passage poem text confucius master""".split()
)  # "Confucius"/"the Master" speak in most glosses: as terms they only favour the long ones
_WORD = re.compile(r"[a-z]+")
_NOT_PINYIN = frozenset({"filial", "king", "duke", "star", "golden", "petty", "small", "book", "man", "men"})
_NAMES = {p: p.replace(" ", "") for p in PHRASES if p.count(" ") == 1 and not _NOT_PINYIN & set(p.split())}


class GlossError(ValueError):
    """A gloss file is malformed; the message names file:line."""


@dataclass(frozen=True)
class Gloss:
    id: str
    en: str
    zh: str
    stanza: int = 0  # 1-based stanza or segment the rendering is of (segments.parts); 0: the whole passage


def load_glosses(folder: Path | None = None) -> dict[str, Gloss]:
    """Every gloss in `folder`/*.jsonl (default data/glosses), by passage id; a missing folder: none.

    Raises GlossError naming file:line for a line that is not a JSON object with non-empty string
    fields id, en and zh, or for an id glossed twice.
    """
    glosses: dict[str, Gloss] = {}
    for where, gloss in _read(GLOSS_DIR if folder is None else folder, part=None):
        if gloss.id in glosses:
            raise GlossError(f"{where}: {gloss.id} is glossed twice")
        glosses[gloss.id] = gloss
    return glosses


def load_stanzas(folder: Path | None = None) -> dict[str, list[Gloss]]:
    """Every part rendering, by passage id in part order: the stanzas in `folder`/stanzas/*.jsonl
    (`{"id", "stanza", "en", "zh"}`) and the long chapters' segments in `folder`/segments/*.jsonl
    (`{"id", "segment", "en", "zh"}`); default folder data/glosses, no folder: none. Raises GlossError
    as `load_glosses` does, and for a part number that is not a positive integer or a part rendered twice."""
    base = GLOSS_DIR if folder is None else folder
    parts: dict[str, list[Gloss]] = {}
    seen: set[tuple[str, int]] = set()
    for sub, key in ((STANZA_DIR, "stanza"), (SEGMENT_DIR, "segment")):
        for where, gloss in _read(base / sub, part=key):
            if (gloss.id, gloss.stanza) in seen:
                raise GlossError(f"{where}: {gloss.id} {key} {gloss.stanza} is rendered twice")
            seen.add((gloss.id, gloss.stanza))
            parts.setdefault(gloss.id, []).append(gloss)
    return {pid: sorted(rows, key=lambda g: g.stanza) for pid, rows in parts.items()}


def _read(folder: Path, *, part: str | None) -> Iterable[tuple[str, Gloss]]:
    for where, row in jsonl_rows(folder, GlossError):
        fields = f"id, {part}, en, zh" if part else "id, en, zh"
        if not isinstance(row, dict):
            raise GlossError(f"{where}: expected an object {{{fields}}}")
        missing = [k for k in ("id", "en", "zh") if not isinstance(row.get(k), str) or not row[k].strip()]
        if missing:
            raise GlossError(f"{where}: missing or empty {', '.join(missing)}")
        number = row.get(part, 0) if part else 0
        if part and (type(number) is not int or number < 1):
            raise GlossError(f"{where}: {part} must be a positive integer")
        if len(row["en"].split()) > MAX_EN_WORDS or len(row["zh"]) > MAX_ZH_CHARS:
            raise GlossError(f"{where}: gloss too long (en ≤ {MAX_EN_WORDS} words, zh ≤ {MAX_ZH_CHARS} chars)")
        yield where, Gloss(row["id"], row["en"].strip(), row["zh"].strip(), number)


def stem(word: str) -> str:
    """Light suffix stemming (friends → friend, lying → ly, studies → study, loved → lov)."""
    if len(word) <= 4:
        return word
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ness", ""), ("ed", ""), ("ly", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    return word


def english_tokens(text: str) -> list[str]:
    """Lowercase words, pinyin names joined (zi lu → zilu), stopwords dropped, stemmed."""
    text = " " + " ".join(_WORD.findall(text.lower())) + " "
    for phrase, joined in _NAMES.items():
        text = text.replace(f" {phrase} ", f" {joined} ")
    return [stem(w) for w in text.split() if w not in STOPWORDS and len(w) > 1]


def pairs(text: str) -> list[str]:
    """Neighbouring CJK character pairs within runs (not across punctuation), in order."""
    return [run[i : i + 2] for run in _CJK_RUN.findall(text) for i in range(len(run) - 1)]


class WordBM25:
    """Okapi BM25 over token lists (bm25s, Lucene's IDF ln(1 + (n − df + 0.5) / (df + 0.5)), as the
    keyword route); a word the query repeats counts once. float64, as the glosses were tuned. `index`
    makes the BM25 of the documents (default `bm25_index`; core/retrieval/bm25_files.py reads a saved one)."""

    def __init__(self, documents: list[list[str]], *, k1: float = 1.5, b: float = 0.75, index: BM25Maker | None = None):
        self._n = len(documents)
        self._bm25 = (index or bm25_index)(documents, k1=k1, b=b, dtype="float64")

    def scores(self, words: list[str]) -> np.ndarray:
        return okapi_scores(self._bm25, list(dict.fromkeys(words)), self._n)


class _Documents:
    """BM25 over renderings of passages (English words; the keyword route's tokens over the Chinese,
    with the poem's title), each passage scored as its best document. `floor`: the CJK characters a
    Chinese query needs for each document to count (English words say little against a stanza's
    characters; an English question is told by `is_question` instead); None: none. `saved`: the folder
    its two indexes are saved in and read from (`name`-en.*, `name`-zh.*: bm25_files.py); None: built.
    Each language's index, and the floor, are made at its first query: a Chinese question never
    tokenises the English renderings (0.09 s of a first modern question), nor an English one the Chinese."""

    def __init__(
        self,
        docs: list[tuple[Passage, Gloss]],
        ids: list[str],
        tokenizer: str,
        floor: Callable[[], list[int]] | None = None,
        *,
        saved: Path | None = None,
        name: str = "glosses",
    ):
        slot = {pid: i for i, pid in enumerate(ids)}
        self._n = len(ids)
        self._passage_of = np.array([slot[p.id] for p, _ in docs], dtype=np.int64)  # document → passage
        self._docs, self._tokenizer, self._floors, self._saved, self._name = docs, tokenizer, floor, saved, name

    @functools.cached_property
    def _english(self) -> WordBM25:
        english = functools.partial(saved_or_built, folder=self._saved, name=f"{self._name}-en")
        return WordBM25([english_tokens(g.en) for _, g in self._docs], index=english)

    @functools.cached_property
    def _chinese(self) -> KeywordIndex:
        # a poem's title is indexed with its Chinese gloss, as with its text (《大车》写的是什么？)
        zh = [Passage(f"{p.id}#{g.stanza}", p.ref, p.corpus, p.title, g.zh) for p, g in self._docs]
        chinese = functools.partial(saved_or_built, folder=self._saved, name=f"{self._name}-zh")
        return KeywordIndex(zh, tokenizer=self._tokenizer, index=chinese)

    @functools.cached_property
    def _floor(self) -> np.ndarray | None:
        return np.array(self._floors(), dtype=np.int64) if self._floors is not None else None

    def prepare(self) -> None:
        """Make both languages' indexes now (read, or built and saved)."""
        self._english, self._chinese  # noqa: B018  (cached properties: reading them makes them)

    def scores(self, query: str) -> np.ndarray:
        """Each passage's best document score (0: no document shares a word)."""
        if query_language(query) != "en":
            key = strip_question_words(query)
            scores = self._chinese.scores(key).astype(np.float64)
            if self._floor is not None:
                scores[self._floor > cjk_count(key)] = 0.0
        else:
            scores = self._english.scores(english_tokens(query))
        best = np.zeros(self._n)
        np.maximum.at(best, self._passage_of, scores)
        return best


def is_question(query: str) -> bool:
    """An English query that ends with a question mark asks about the books ("Which poem …?"); one
    that does not may be a rendering of a stanza (a stanza's own rhetorical question rarely ends the
    rendering a reader pastes)."""
    return query.rstrip().endswith("?")


def stanza_chars(passage: Passage, stanza: int) -> int:
    """CJK characters of the passage's `stanza` or segment (1-based; 0 when it has no such part)."""
    found = parts(passage.corpus, passage.text)
    return cjk_count(found[stanza - 1]) if 0 < stanza <= len(found) else 0


# Loads the gloss vectors of the glossed passages, their glosses, parts and asks (gloss_vectors.py), or None.
VectorLoader = Callable[
    [list[Passage], dict[str, Gloss], dict[str, list[Gloss]], dict[str, tuple[str, ...]]], "GlossVectors | None"
]


class GlossIndex:
    """BM25 over the glosses of the passages given, and over their stanza renderings: a passage
    scores as the better of its gloss and its best stanza (a passage with neither is not in it).

    The stanzas are a collection of their own, so the glosses score exactly as they do without
    them (their BM25 statistics are theirs alone); a stanza's rendering only counts for a Chinese
    query at least as long as the stanza (a rendering is not shorter than what it renders, and a
    question of nine characters is no rendering of a stanza of sixteen) and for English that is not
    a question (`is_question`). `vectors`, when given, loads the glosses' vectors (gloss_vectors.py)
    from the glosses read here, the first time the vector route asks for them (`GlossIndex.vectors`)."""

    def __init__(
        self,
        glosses: dict[str, Gloss],
        passages: Iterable[Passage],
        *,
        stanzas: dict[str, list[Gloss]] | None = None,
        tokenizer: str = "bigram",
        vectors: VectorLoader | None = None,
        saved: Path | None = None,
        asks: Path | None = None,
    ):
        stanzas = stanzas or {}
        self._asks = asks  # the folder of the passages' asks (asks.py), read with the vectors
        passages = [p for p in passages if p.id in glosses or p.id in stanzas]
        self.ids = [p.id for p in passages]
        self._corpus = np.array([p.corpus for p in passages])
        self._whole = [(p, glosses[p.id]) for p in passages if p.id in glosses]
        self._parts = [(p, g) for p in passages for g in stanzas.get(p.id, [])]
        self._tokenizer = tokenizer
        self._vector_loader = vectors
        self._texts = [p.text for p in passages]
        self._saved = saved

    # What `wants` looks a query up in, each built the first time a query needs it (~50 ms together,
    # off a start): the pairs for Chinese of PROSE_MIN_PAIRS pairs or more, the grams for a query the
    # route may take (English, modern Chinese).
    @functools.cached_property
    def _grams(self) -> set[str]:
        return {t[i : i + QUOTED_CHARS] for text in self._texts for t in [squash(text)] for i in range(len(t))}

    @functools.cached_property
    def _pairs(self) -> set[str]:
        return {pair for text in self._texts for pair in pairs(text)}

    # The BM25 collections are made when a query first runs the route (a start and an answer from the
    # text's own words never need them): read from `saved` when their tokens are unchanged, else built.
    @functools.cached_property
    def _glosses(self) -> _Documents:
        return _Documents(self._whole, self.ids, self._tokenizer, saved=self._saved)

    @functools.cached_property
    def _stanzas(self) -> _Documents | None:
        if not self._parts:
            return None

        def floor() -> list[int]:
            return [stanza_chars(p, g.stanza) for p, g in self._parts]

        return _Documents(self._parts, self.ids, self._tokenizer, floor, saved=self._saved, name="parts")

    # So are the gloss vectors (15–40 ms: a sha256 over every gloss names their file), for the same queries.
    @functools.cached_property
    def vectors(self) -> GlossVectors | None:
        """The gloss and segment vectors of the glossed passages (None: no loader, no glosses or no file)."""
        if self._vector_loader is None or not self._whole:
            return None
        parts: dict[str, list[Gloss]] = {}
        for p, g in self._parts:
            parts.setdefault(p.id, []).append(g)
        try:
            asks = load_asks(self._asks) if self._asks is not None else {}
        except AskError as exc:  # a damaged file: the vectors saved with the asks are not these; served without
            log.warning("asks_unreadable", reason=str(exc), hint="restore data/glosses/asks, run `fuzi index`")
            asks = {}
        return self._vector_loader([p for p, _ in self._whole], {p.id: g for p, g in self._whole}, parts, asks)

    def prepare(self) -> None:
        """Make both BM25 collections now (read, or built and saved) instead of at the route's first query."""
        for documents in (self._glosses, self._stanzas):
            if documents is not None:
                documents.prepare()

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def load(
        cls,
        passages: PassageTable,
        folder: Path | None = None,
        *,
        tokenizer: str = "bigram",
        vectors: VectorLoader | None = None,
        saved: Path | None = None,
    ) -> GlossIndex:
        """The index of `folder`'s glosses and stanza renderings (default data/glosses) for the
        passages of the table; `vectors`: the loader of their gloss vectors (`GlossIndex.vectors`);
        `saved`: where its BM25 collections are saved and read (bm25_files.py; None: built each time)."""
        glosses, stanzas = load_glosses(folder), load_stanzas(folder)
        asks = (GLOSS_DIR if folder is None else folder) / ASK_DIR
        chosen = [passages[i] for i in passages.order if i in glosses or i in stanzas]
        return cls(glosses, chosen, stanzas=stanzas, tokenizer=tokenizer, vectors=vectors, saved=saved, asks=asks)

    def is_modern_prose(self, query: str) -> bool:
        """Modern Chinese without a question word: PROSE_MIN_PAIRS character pairs or more, under
        PROSE_MAX_SHARE of them found in any passage (a translation, not a line of the books)."""
        found = pairs(query)
        return len(found) >= PROSE_MIN_PAIRS and sum(p in self._pairs for p in found) < PROSE_MAX_SHARE * len(found)

    def wants(self, query: str) -> bool:
        """Whether the route runs for `query`: glosses exist and it is English, a modern-Chinese
        question or modern-Chinese prose (`is_modern_prose`) that quotes no passage (子贡问政的时候，
        孔子是怎么回答的？ quotes 子贡问政: the text's own words find it)."""
        if not self.ids or not (wants_translation(query) or self.is_modern_prose(query)):
            return False
        key = squash(strip_question_words(query))
        return not any(key[i : i + QUOTED_CHARS] in self._grams for i in range(len(key) - QUOTED_CHARS + 1))

    def search(self, query: str, limit: int, corpus: str = "all") -> list[tuple[str, float]]:
        """(id, score) best first, positive scores only; [] for a query that wants no gloss."""
        if not self.wants(query):
            return []
        best = self._glosses.scores(query)
        if self._stanzas is not None and not (query_language(query) == "en" and is_question(query)):
            best = np.maximum(best, self._stanzas.scores(query))
        if corpus != "all":
            best = np.where(np.isin(self._corpus, books_in(corpus)), best, 0.0)
        order = np.argsort(-best, kind="stable")[:limit]
        return [(self.ids[i], float(best[i])) for i in order if best[i] > 0]

    async def route(self, query: str, pool: int, corpus: str, timings: dict, vectors: dict) -> list[tuple[str, float]]:
        """The retriever's route signature (a few ms over the glosses and stanzas: run inline)."""
        return self.search(query, pool, corpus)
