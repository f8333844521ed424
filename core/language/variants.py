"""Variant characters: the old forms the corpus prints and the forms readers type.

The corpus files keep the forms of their printed source: 昬昬 where readers type 昏昏 (《孟子·尽心下》),
鼈 for 鳖, 煖 for 暖, 彊 for 强, 餽 for 馈. OpenCC's `t2s` leaves these alone: they are variants, not
Traditional characters. Readers also write 悦 where the classics write 说 (不亦说乎, 王说), and 悌 where
they write 弟 (孝弟), and 烝 and 蒸 stand for each other (天生烝民 in the Songs, 蒸民 in 孟子). Verbatim comparisons (`core.language.text.squash`) fold both sides through this
table, so a quote typed either way finds its passage; the texts themselves are shown as printed.

The table is short on purpose: each entry is a variant pair that standard dictionaries (《通用规范汉字表》's
异体字 list, 《汉语大字典》) give as the same word, checked against every place the five corpus files
use the old form. A character that is a variant only in some words (辟 for 避 and 僻, 知 for 智, 女 for
汝) stays out: folding it would make unrelated lines equal.
"""

from __future__ import annotations

VARIANTS: dict[str, str] = {
    "昬": "昏",
    "鼈": "鳖",
    "煖": "暖",
    "彊": "强",
    "餽": "馈",
    "鴈": "雁",
    "廐": "厩",
    "鬬": "斗",
    "敺": "驱",
    "偪": "逼",
    "揜": "掩",
    "阨": "厄",
    "儛": "舞",
    "鼃": "蛙",
    "諠": "喧",
    "嘑": "呼",
    "桮": "杯",
    "脩": "修",
    "悦": "说",
    "悌": "弟",
    "烝": "蒸",
}
"""Variant → the form both sides are folded to (for 悦/说 and 悌/弟: the form the classics print)."""

_TABLE = str.maketrans(VARIANTS)


def fold_variants(text: str) -> str:
    """`text` with every variant of the table replaced by its folded form."""
    return text.translate(_TABLE)
