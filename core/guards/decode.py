"""What a piece of text may *decode to*: base64, hex, URL-encoding, separator-split letters, pinyin.

A remembered fact goes into every later prompt, so a fact that is an instruction in disguise
("aWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM=", "hu lue zhi qian de zhi ling") must be caught
before it is stored. `decodings(text)` returns every plausible plain-text reading of `text`; the
memory screen (core/guards/memory.py) runs the injection detector on each. Pinyin cannot be turned
back into characters without a dictionary, so `pinyin_instruction` instead looks for the pinyin of
the detector's core word families (discard + instructions, reveal + system prompt, persona + no
limits) near each other, the same way core/guards/proximity.py does for characters.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from urllib.parse import unquote

_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = re.compile(r"(?:(?:\\x|0x)?[0-9a-fA-F]{2}[\s:,-]?){8,}")
_URL_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")
# A word spelled one letter/character at a time with one separator between: "i-g-n-o-r-e", "忽|略|之|前".
_SEP = r"[-_.|/\\*·•+~:;,]"
_SPELLED = re.compile(rf"^\w(?:{_SEP}\w){{2,}}$")
MIN_PRINTABLE = 0.9


def _readable(raw: bytes) -> str | None:
    """`raw` as UTF-8 text when it decodes and is mostly printable, else None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 4:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    return text if printable / len(text) >= MIN_PRINTABLE and any(ch.isalpha() for ch in text) else None


def _base64(text: str) -> list[str]:
    found = []
    for run in _B64_RUN.findall(text):
        body = run.rstrip("=")
        padded = body + "=" * (-len(body) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                plain = _readable(decode(padded))
            except (binascii.Error, ValueError):
                continue
            if plain is not None:
                found.append(plain)
                break
    return found


def _hex(text: str) -> list[str]:
    found = []
    for run in _HEX_RUN.findall(text):
        digits = re.sub(r"\\x|0x|[\s:,-]", "", run)
        if len(digits) % 2:
            digits = digits[:-1]
        try:
            plain = _readable(bytes.fromhex(digits))
        except ValueError:
            continue
        if plain is not None:
            found.append(plain)
    return found


def _url(text: str) -> list[str]:
    if len(_URL_ESCAPE.findall(text)) < 3:
        return []
    plain = unquote(text.replace("+", " "))
    return [plain] if plain != text else []


def _unsplit(text: str) -> list[str]:
    tokens = text.split()
    joined = " ".join(re.sub(_SEP, "", t) if _SPELLED.match(t) else t for t in tokens)
    return [joined] if joined != " ".join(tokens) else []


def decodings(text: str) -> list[str]:
    """Every plausible decoded reading of `text` (not `text` itself); decodes one level deep twice,
    so base64 of URL-encoded text is read too."""
    found: list[str] = []
    frontier = [text]
    for _ in range(2):
        nxt: list[str] = []
        for item in frontier:
            for plain in (*_base64(item), *_hex(item), *_url(item), *_unsplit(item)):
                if plain not in found and plain != text:
                    found.append(plain)
                    nxt.append(plain)
        frontier = nxt
    return found


# ------------------------------------------------------------------ pinyin
_SYLLABLE = re.compile(
    r"^(?:[bpmfdtnlgkhjqxrzcsyw]|zh|ch|sh)?(?:a|o|e|i|u|v|ai|ei|ao|ou|an|en|ang|eng|ong|er|ia|ie|iao|iu|ian|in|"
    r"iang|ing|iong|ua|uo|uai|ui|uan|un|uang|ue|ve|van|vn)$"
)
_SPLIT_SYLLABLES = re.compile(r"[a-z]+")


def _toneless(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.casefold().replace("ü", "v"))
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return re.sub(r"[1-5]", " ", folded)


def looks_like_pinyin(text: str) -> bool:
    """True when most of the Latin words in `text` are single pinyin syllables (spaced pinyin)."""
    words = _SPLIT_SYLLABLES.findall(_toneless(text))
    if len(words) < 4:
        return False
    return sum(bool(_SYLLABLE.match(w)) for w in words) / len(words) >= 0.8


_P = r"\s*"
_PY_DISCARD = rf"(?:hu{_P}lve|hu{_P}lue|hu{_P}shi|wu{_P}shi|wang{_P}(?:ji|diao|le)|bu{_P}(?:yao|yong|bi){_P}(?:li|guan|zun{_P}shou)|fang{_P}qi|zuo{_P}fei|qu{_P}xiao)"
_PY_INSTR = (
    rf"(?:zhi{_P}ling|zhi{_P}shi|she{_P}ding|gui{_P}ze|ti{_P}shi|ming{_P}ling|yao{_P}qiu|xian{_P}zhi|yue{_P}shu)"
)
_PY_REVEAL = rf"(?:shu{_P}chu|da{_P}yin|fu{_P}shu|chong{_P}fu|gao{_P}su{_P}wo|xie{_P}lou|xian{_P}shi|fan{_P}yi)"
_PY_SECRET = rf"(?:xi{_P}tong{_P}ti{_P}shi|ti{_P}shi{_P}ci|chu{_P}shi{_P}(?:zhi{_P}ling|she{_P}ding)|xi{_P}tong{_P}she{_P}ding|yin{_P}cang)"
_PY_PERSONA = rf"(?:ban{_P}yan|jia{_P}zhuang|ni{_P}xian{_P}zai{_P}shi|cong{_P}xian{_P}zai{_P}kai{_P}shi)"
_PY_UNBOUND = rf"(?:mei{_P}you{_P}(?:ren{_P}he{_P})?xian{_P}zhi|wu{_P}xian{_P}zhi|bu{_P}shou{_P}(?:ren{_P}he{_P})?(?:xian{_P}zhi|yue{_P}shu)|yue{_P}yu)"
_PINYIN_RULES = (
    re.compile(rf"{_PY_DISCARD}.{{0,40}}?{_PY_INSTR}"),
    re.compile(rf"{_PY_REVEAL}.{{0,40}}?{_PY_SECRET}|{_PY_SECRET}.{{0,40}}?{_PY_REVEAL}"),
    re.compile(rf"{_PY_PERSONA}.{{0,60}}?{_PY_UNBOUND}"),
)


def pinyin_instruction(text: str) -> bool:
    """True when `text` is spaced pinyin that spells an injection's core words (see module doc)."""
    if not looks_like_pinyin(text):
        return False
    plain = " ".join(_SPLIT_SYLLABLES.findall(_toneless(text)))
    return any(rule.search(plain) for rule in _PINYIN_RULES)
