"""Markdown (as the model writes it) to Telegram HTML (``parse_mode="HTML"``).

HTML is the Telegram parse mode with the simplest correct escaping: only ``&``, ``<`` and ``>`` need
escaping in text (and ``"`` in attributes), whereas MarkdownV2 reserves 18 characters whose escaping
rules differ inside code, links and plain text. Supported: fenced code blocks (with language), inline
code, bold (``**``/``__``), italic (``*``/``_`` at word boundaries), strikethrough (``~~``), spoilers
(``||``), links (http, https, tg and mailto only), headings (shown bold), block quotes, bullet
lists (shown with "•") and horizontal rules. Anything else is shown as literal, escaped text.

If Telegram still rejects the result (it should not), the sink re-sends the Markdown as plain text.
"""

from __future__ import annotations

import re
from functools import partial
from html import escape

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_QUOTE = re.compile(r"^ {0,3}> ?(.*)$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_RULE = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_LINK = re.compile(r"\[([^\[\]\n]+)\]\(\s*((?:https?|tg|mailto):[^\s()<>]+)\s*\)")
_INLINE_RULES = [
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.S), "b"),
    (re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)", re.S), "b"),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~", re.S), "s"),
    (re.compile(r"\|\|(?=\S)(.+?)(?<=\S)\|\|", re.S), "tg-spoiler"),
    (re.compile(r"(?<!\*)\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?!\*)", re.S), "i"),
    (re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])", re.S), "i"),
]
_TAG = re.compile(r"<(/?)([a-z-]+)[^>]*>")
_SLOT = "\x00{}\x00"
_SLOT_RE = re.compile("\x00(\\d+)\x00")


def utf16_len(text: str) -> int:
    """Length as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def to_html(markdown: str) -> str:
    """Convert Markdown to Telegram HTML; the result always has balanced, supported tags."""
    markdown = markdown.replace("\x00", "")
    out: list[str] = []
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence:
            i = _code_block(lines, i, fence, out)
            continue
        if _QUOTE.match(lines[i]):
            i = _quote_block(lines, i, out)
            continue
        out.append(_line(lines[i]))
        i += 1
    return "\n".join(out)


def _code_block(lines: list[str], start: int, fence: re.Match, out: list[str]) -> int:
    marker, lang = fence.group(1), fence.group(2)
    body: list[str] = []
    i = start + 1
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped and set(stripped) == {marker[0]} and len(stripped) >= len(marker):
            i += 1
            break
        body.append(lines[i])
        i += 1
    code = escape("\n".join(body), quote=False)
    if lang:
        out.append(f'<pre><code class="language-{escape(lang)}">{code}</code></pre>')
    else:
        out.append(f"<pre>{code}</pre>")
    return i


def _quote_block(lines: list[str], start: int, out: list[str]) -> int:
    quoted: list[str] = []
    i = start
    while i < len(lines) and (m := _QUOTE.match(lines[i])):
        quoted.append(_line(m.group(1)))
        i += 1
    out.append("<blockquote>" + "\n".join(quoted) + "</blockquote>")
    return i


def _line(line: str) -> str:
    if _RULE.match(line):
        return "——————"
    heading = _HEADING.match(line)
    if heading:
        return f"<b>{inline(heading.group(1))}</b>"
    bullet = _BULLET.match(line)
    if bullet:
        return f"{bullet.group(1)}• {inline(bullet.group(2))}"
    return inline(line)


def inline(text: str) -> str:
    """Inline Markdown to HTML: code spans and links first (their content is protected), then
    emphasis on the escaped remainder."""
    slots: list[str] = []

    def keep(html: str) -> str:
        slots.append(html)
        return _SLOT.format(len(slots) - 1)

    text = _CODE_SPAN.sub(lambda m: keep(f"<code>{escape(m.group(2).strip() or m.group(2), quote=False)}</code>"), text)
    text = _LINK.sub(
        lambda m: keep(f'<a href="{escape(m.group(2))}">{_emphasis(escape(m.group(1), quote=False))}</a>'), text
    )
    html = _emphasis(escape(text, quote=False))
    while _SLOT_RE.search(html):
        html = _SLOT_RE.sub(lambda m: slots[int(m.group(1))], html)
    return html


def _wrap(tag: str, match: re.Match[str]) -> str:
    return f"<{tag}>{match.group(1)}</{tag}>"


def _emphasis(escaped: str) -> str:
    """Apply emphasis rules one by one; a rule whose matches would cross tags is skipped."""
    for pattern, tag in _INLINE_RULES:
        candidate = pattern.sub(partial(_wrap, tag), escaped)
        if candidate != escaped and _balanced(candidate):
            escaped = candidate
    return escaped


def _balanced(html: str) -> bool:
    stack: list[str] = []
    for closing, name in _TAG.findall(html):
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack
