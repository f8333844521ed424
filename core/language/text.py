"""Shared text helpers: Chinese-character detection and the language to reply in.

"CJK" here means Han ideographs, every block of them: Extension A (U+3400–U+4DBF), the unified
block (U+4E00–U+9FFF), the compatibility ideographs (U+F900–U+FAFF) and the supplementary
ideographic planes 2 and 3 (U+20000–U+3FFFF: Extensions B–I and the compatibility supplement).
Not counted: kana, hangul, CJK punctuation, full-width forms and the Yijing hexagram symbols
(U+4DC0–U+4DFF), which sit between Extension A and the unified block but are not ideographs.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from core.language import Language
from core.language.variants import fold_variants

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")
"""One Han ideograph (any block)."""

_LATIN_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


def has_cjk(text: str) -> bool:
    """True when `text` contains at least one Han ideograph."""
    return CJK.search(text) is not None


def cjk_count(text: str) -> int:
    """How many Han ideographs `text` contains."""
    return len(CJK.findall(text))


def reply_language(text: str) -> Language:
    """The language to answer `text` in: "en" when English words outweigh Chinese characters, else "zh".

    An English word counts as two Chinese characters: "What is 学而时习之 about?" is English,
    "请解释 the golden rule 的意思" and "学而时习之是什么意思" are Chinese.
    """
    words = len(_LATIN_WORD.findall(text))
    return "en" if words and words * 2 > cjk_count(text) else "zh"


def threshold_language(text: str) -> Language:
    """The language whose threshold the injection screen applies: "zh" when `text` has any Han
    ideograph, else "en".

    Not `reply_language`: the screen's per-language thresholds were calibrated on messages split this
    way (core/guards/ngram.py, semantic.py), and a mixed message with one Chinese word is screened as
    Chinese, where it may well be answered in English.
    """
    return "zh" if has_cjk(text) else "en"


def to_simplified(text: str) -> str:
    """`text` in Simplified characters (OpenCC's `t2s`, phrase-level: 學而時習之 → 学而时习之).

    On every query's path (the verbatim and theme routes squash it; about 3 µs a call for a short
    query, and 1 ms for all 512 Analects passages, on the 2-core EPYC machine); the corpus and the
    queries go through the same conversion, so a quote typed in Traditional finds its passage.
    """
    return _t2s().convert(text) if text else text


@functools.cache
def _t2s():  # the binding loads its dictionaries once, at construction (~35 ms with the import)
    import opencc

    return opencc.OpenCC("t2s.json")


# Characters NFKC may turn into a letter or digit (full-width forms, compatibility ideographs,
# radicals, circled and letter-like symbols, ligatures, accented Latin): NFKC runs only when one is
# present, which for the corpus is almost never (a third of the index build time before).
_COMPAT = re.compile(
    "[\u0080-\u02ff\u2070-\u209f\u2100-\u24ff\u2e80-\u2fdf\u3200-\u33ff\uf900-\ufaff\ufb00-\ufb4f"
    "\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uff66-\uffdc\U0002f800-\U0002fa1f]"
)


def nfkc(text: str) -> str:
    """NFKC of `text`, skipped when no character of it could change into a letter or digit."""
    return unicodedata.normalize("NFKC", text) if _COMPAT.search(text) else text


_RUN = re.compile(r"[^\W_]+")  # a run of letters and digits


def squashed_runs(text: str) -> list[str]:
    """The runs of letters and digits of `text` after NFKC, lower-casing, Traditional → Simplified and
    variant folding (core/language/variants.py): what is left when punctuation, spaces, symbols, line
    breaks, script and variant characters are set aside."""
    return _RUN.findall(fold_variants(to_simplified(nfkc(text).lower())))


def squash(text: str) -> str:
    """`text` as verbatim comparisons see it: its squashed runs joined ("學而時習之，不亦說乎" and
    "学而时习之不亦说乎" are the same)."""
    return "".join(squashed_runs(text))
