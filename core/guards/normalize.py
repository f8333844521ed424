"""Text normalisation that undoes the cheap tricks used to slip past pattern checks.

Produces several *views* of one message:

- ``words``: NFKC (full-width → half-width), case-folded, zero-width/control/combining marks
  removed, look-alike Cyrillic/Greek letters mapped to Latin, common traditional characters mapped
  to simplified, leetspeak inside words undone (``1gn0r3`` → ``ignore``), letter-spaced words
  joined (``i g n o r e`` / ``i.g.n.o.r.e`` → ``ignore``), every run of punctuation/space → one space.
- ``compact``: ``words`` with every space removed (``忽 略 之 前`` → ``忽略之前``).
- ``raw``: NFKC with invisible characters removed, case kept (for case-sensitive names like DAN).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

_HOMOGLYPHS = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "ѕ": "s",
        "ԁ": "d",
        "ɡ": "g",
        "ո": "n",
        "ս": "u",
        "ο": "o",
        "α": "a",
        "ε": "e",
        "ι": "i",
        "ν": "v",
        "ρ": "p",
        "τ": "t",
        "κ": "k",
        "υ": "u",
        "ß": "ss",
        "ı": "i",
        "ł": "l",
        "ø": "o",
        "đ": "d",
    }
)

# Traditional → simplified for the characters that the injection patterns use.
_TRAD = str.maketrans(
    {
        "從": "从",
        "現": "现",
        "開": "开",
        "請": "请",
        "輸": "输",
        "說": "说",
        "規": "规",
        "則": "则",
        "設": "设",
        "對": "对",
        "話": "话",
        "統": "统",
        "詞": "词",
        "無": "无",
        "視": "视",
        "讓": "让",
        "發": "发",
        "複": "复",
        "內": "内",
        "顯": "显",
        "訴": "诉",
        "寫": "写",
        "將": "将",
        "這": "这",
        "們": "们",
        "為": "为",
        "麼": "么",
        "後": "后",
        "別": "别",
        "當": "当",
        "記": "记",
        "憶": "忆",
        "應": "应",
        "問": "问",
        "題": "题",
        "執": "执",
        "務": "务",
        "條": "条",
        "試": "试",
        "調": "调",
        "權": "权",
        "機": "机",
        "範": "范",
        "圍": "围",
        "約": "约",
        "長": "长",
        "輩": "辈",
        "聽": "听",
        "覆": "复",
        "蓋": "盖",
        "棄": "弃",
        "過": "过",
        "繞": "绕",
        "讀": "读",
        "誦": "诵",
        "錄": "录",
        "個": "个",
        "級": "级",
        "絕": "绝",
        "麽": "么",
        "給": "给",
        "變": "变",
        "僅": "仅",
        "號": "号",
        "預": "预",
        "認": "认",
        "導": "导",
        "實": "实",
        "際": "际",
        "測": "测",
        "驗": "验",
        "貓": "猫",
        "廢": "废",
        "嗎": "吗",
        "啟": "启",
        "動": "动",
        "戲": "戏",
        "遊": "游",
        "裝": "装",
        "離": "离",
        "經": "经",
        "歷": "历",
        "學": "学",
        "習": "习",
        "態": "态",
        "處": "处",
        "於": "于",
        "關": "关",
        "閉": "闭",
        "謊": "谎",
        "稱": "称",
        "隱": "隐",
        "藏": "藏",
        "洩": "泄",
        "漏": "漏",
        "頭": "头",
        "戶": "户",
        "準": "准",
        "擬": "拟",
        "護": "护",
        "歲": "岁",
        "遺": "遗",
        "囑": "嘱",
        "憑": "凭",
        "進": "进",
        "審": "审",
        "濾": "滤",
        "該": "该",
        "選": "选",
        "換": "换",
        "釋": "释",
        "喚": "唤",
        "幫": "帮",
        "劇": "剧",
        "終": "终",
        "醫": "医",
        "師": "师",
        "歡": "欢",
        "貼": "贴",
        "況": "况",
        "與": "与",
        "聖": "圣",
        "舊": "旧",
        "東": "东",
        "還": "还",
        "邊": "边",
        "氣": "气",
        "壞": "坏",
        "裡": "里",
        "裏": "里",
        "優": "优",
        "勢": "势",
        "決": "决",
        "項": "项",
        "辦": "办",
        "網": "网",
        "語": "语",
        "專": "专",
        "員": "员",
        "殺": "杀",
        "騙": "骗",
        "寵": "宠",
        "隨": "随",
        "鍵": "键",
        "碼": "码",
        "啓": "启",
        "斷": "断",
        "擁": "拥",
        "誰": "谁",
        "並": "并",
        "聯": "联",
        "軟": "软",
        "體": "体",
        "盜": "盗",
        "駭": "骇",
        "妳": "你",
        "祢": "你",
        "您": "你",
    }
)

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s"})
_LEET_TOKEN = re.compile(r"[a-z0-9@$]*[a-z][a-z0-9@$]*")
_LEET_DIGITS = re.compile(r"(?<![\w.,])[013457]{1,4}(?![\w.,])")
_SPLIT = re.compile(r"([^\W_]+)", re.UNICODE)
_SCRIPT_EDGE = re.compile(r"(?<=[\u3400-\u9fff])(?=[a-z0-9])|(?<=[a-z0-9])(?=[\u3400-\u9fff])")


@dataclass(frozen=True)
class Views:
    """The views of one message that the detector matches against."""

    raw: str
    words: str
    compact: str


_CF_14 = (
    (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891),
    (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064),
    (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip
_CF_15 = tuple((a, 0x1343F) if a == 0x13430 else (a, b) for a, b in _CF_14)
CF_RANGES: dict[str, tuple[tuple[int, int], ...]] = {"14.0.0": _CF_14, "15.0.0": _CF_15, "15.1.0": _CF_15}
"""Every format (Cf) character, as ranges, per Unicode version of `unicodedata` (Python 3.11,
3.12, 3.13): what `_format_ranges` finds by scanning, without its 40–50 ms at every start
(tests/test_guard_injection.py checks the running version's table against the scan)."""


def _invisible_class() -> re.Pattern[str]:
    """One regex class for control (Cc, except newline and tab), format (Cf: zero-width …),
    surrogate and private-use characters."""
    ranges = [(0x0, 0x8), (0xB, 0x1F), (0x7F, 0x9F), (0xD800, 0xDFFF), (0xE000, 0xF8FF), (0xF0000, 0x10FFFF)]
    cf = CF_RANGES.get(unicodedata.unidata_version) or _format_ranges()
    parts = [f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in cf]
    return re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "".join(parts) + "]")


def _format_ranges() -> tuple[tuple[int, int], ...]:
    """The format (Cf) characters of this Python's Unicode version, as ranges of code points."""
    out: list[tuple[int, int]] = []
    for cp in (ord(ch) for block in _unprintable_blocks() for ch in block if unicodedata.category(ch) == "Cf"):
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return tuple(out)


def _unprintable_blocks(size: int = 128) -> Iterator[str]:
    """The blocks of `size` code points below U+30000 and in U+E0000–U+E0FFF that hold a character
    `str.isprintable` refuses (every Cf character is one): two fifths of the 200,000 code points, one
    C call per block to skip the rest."""
    for low, high in ((0, 0x30000), (0xE0000, 0xE1000)):
        for start in range(low, high, size):
            block = "".join(map(chr, range(start, min(start + size, high))))
            if not block.isprintable():
                yield block


_INVISIBLE = _invisible_class()


def strip_invisible(text: str) -> str:
    """Remove control (Cc, except newline and tab), format (Cf: zero-width …) and private-use chars."""
    return _INVISIBLE.sub("", text)


def _drop_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    kept = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return unicodedata.normalize("NFC", kept)


def _unleet(token: str) -> str:
    if token.isalpha() or not any(c.isalpha() for c in token):
        return token
    return token.translate(_LEET)


def _join_spelled(text: str) -> list[str]:
    """Split into words, joining letter-spaced runs: "i g n o r e  a l l" → ["ignore", "all"].

    Single characters separated by one and the same separator character form a run (three or more
    are joined); a longer or different separator (two spaces, " : ", a space after dots) ends the
    run, so word breaks survive.
    """
    parts = _SPLIT.split(text)  # [sep, tok, sep, tok, ..., sep]
    out: list[str] = []
    run: list[str] = []
    run_sep = ""  # the separator before the current run
    inner_sep = ""  # the separator between the letters of the current run

    def flush(after: str) -> None:
        # Two letters join only when set apart by wide gaps on both sides ("a s" in "b e  a s  i f").
        wide = len(run_sep) != 1 and len(after) != 1
        out.extend(["".join(run)] if len(run) >= 3 or (len(run) == 2 and wide) else run)
        run.clear()

    for i in range(1, len(parts), 2):
        tok, before = parts[i], parts[i - 1]
        switch = len(run) > 1 and len(tok) == 1 and len(before) == 1 and before != inner_sep
        if switch and len(run) == 2:  # "a r.o.l.e": the second letter starts the dotted run
            out.append(run.pop(0))
            run_sep, inner_sep = inner_sep, before
        elif run and (len(tok) != 1 or len(before) != 1 or switch):
            flush(before)
        if len(tok) == 1:
            if not run:
                run_sep = before
            elif len(run) == 1:
                inner_sep = before  # "i.g.n" → ".", so "y d.i.s" breaks the run at the space
            run.append(tok)
        else:
            out.append(tok)
    if run:
        flush(parts[-1])
    return out


def _unleet_all(text: str) -> str:
    """Undo leetspeak inside words; when several words were leet, short digit runs too ("45" → "as")."""
    mixed = [m for m in _LEET_TOKEN.finditer(text) if not m.group(0).isalpha()]
    text = _LEET_TOKEN.sub(lambda m: _unleet(m.group(0)), text)
    if len(mixed) >= 2:
        text = _LEET_DIGITS.sub(lambda m: m.group(0).translate(_LEET), text)
    return text


def views(text: str) -> Views:
    """Build every view of `text` (see the module docstring)."""
    raw = strip_invisible(unicodedata.normalize("NFKC", text))
    folded = _drop_marks(raw).casefold().translate(_HOMOGLYPHS).translate(_TRAD)
    folded = _unleet_all(folded)
    words = _SCRIPT_EDGE.sub(" ", " ".join(_join_spelled(folded)))
    return Views(raw=raw, words=words, compact=words.replace(" ", ""))
