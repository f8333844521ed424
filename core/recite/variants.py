"""Characters readers write for one another when reciting the classics: the checker's variant table.

Each group is one set of interchangeable characters (Simplified forms; the answer has already been
through OpenCC's Traditional → Simplified). Three kinds:

- 通假 the received text uses for another word: 说/悦 (不亦说乎), 弟/悌 (孝弟), 知/智 (知者乐水),
  女/汝 (女知之乎), 共/拱 (众星共之), 亡/无, 与/欤, 辟/僻, 错/措, 蚤/早, 莫/暮, 陈/阵, 反/返,
  内/纳;
- old or regional forms OpenCC leaves alone: 昬/昏, 説/说, 彊/强, 脩/修, 爲/为, 吿/告, 衆/众, 敎/教;
- forms some editions print: 餘/余, 於/于, 歎/叹, 嘆/叹, 游/遊, 并/並 (most OpenCC already maps).

The first character of a group is the one the comparison keeps. A group never joins two words the
corpus uses for different words a reciter could confuse: 已/以, 己/已, 有/又 stay apart.
"""

from __future__ import annotations

from core.language.variants import VARIANTS as SEARCH_VARIANTS

GROUPS: tuple[str, ...] = (
    "说悦説悅",
    "弟悌",
    "昏昬",
    "知智",
    "女汝",
    "共拱",
    "亡无無",
    "与欤歟與",
    "辟僻",
    "错措",
    "早蚤",
    "莫暮",
    "陈阵",
    "反返",
    "内纳",
    "强彊強",
    "修脩",
    "为爲為",
    "告吿",
    "众衆眾",
    "教敎",
    "余馀餘",
    "于於",
    "叹歎嘆",
    "游遊",
    "并並",
    "尔爾",
    "欲慾",
)

VARIANTS: dict[str, str] = {**SEARCH_VARIANTS, **{ch: group[0] for group in GROUPS for ch in group}}
"""Character → the one the comparison keeps: every pair search folds (core/language/variants.py: the
old forms the corpus prints), widened by the groups above, which only a reciter's answer may use."""


def fold(text: str) -> str:
    """`text` with every variant replaced by its group's first character."""
    return "".join(VARIANTS.get(ch, ch) for ch in text)
