"""Platform-neutral rendering of engine results into Markdown text.

Every adapter shows a final reply the same way: the model's Markdown body, then a footnote block
listing the passages its ``[n]`` markers refer to. Platform renderers convert this Markdown to their
own format afterwards (Telegram HTML, Discord Markdown).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from core.events import Citation, FinalReply

STOPPED_MARK = "（已停止）"


FootnoteLink = Callable[[str], str | None]
"""A cited passage's id → where to read it (the reading room), or None: the footnote stays plain."""


def render_footnotes(citations: Iterable[Citation], link: FootnoteLink | None = None) -> str:
    """One line per citation, ordered by number: ``[1] 《论语·八佾》第22章``; with ``link``, the
    reference is a Markdown link to the passage (``[1] [《论语·八佾》第22章](https://…)``).

    Duplicate numbers keep their first entry; an empty input gives "".
    """
    seen: dict[int, Citation] = {}
    for citation in citations:
        seen.setdefault(citation.n, citation)
    lines = []
    for _, c in sorted(seen.items()):
        label, url = c.ref or c.id, link(c.id) if link else None
        lines.append(f"[{c.n}] [{label}]({url})" if url else f"[{c.n}] {label}")
    return "\n".join(lines)


def compose(final: FinalReply, link: FootnoteLink | None = None) -> str:
    """The full text to show for a final reply: body, a blank line, then the footnotes."""
    body = final.text.strip()
    notes = render_footnotes(final.citations, link)
    if not notes:
        return body
    return f"{body}\n\n{notes}" if body else notes


def stopped(shown: str, mark: str = STOPPED_MARK) -> str:
    """What a cancelled reply ends with: the text shown so far plus the stop mark."""
    shown = shown.rstrip()
    return f"{shown}{mark}" if shown else mark


def with_notice(shown: str, notice_text: str) -> str:
    """A streamed reply interrupted by a notice (e.g. an error): the text so far, then the notice."""
    shown, notice_text = shown.rstrip(), notice_text.strip()
    if not shown:
        return notice_text
    return f"{shown}\n\n{notice_text}" if notice_text else shown


def truncate(text: str, limit: int, measure=len, ellipsis: str = " …") -> str:
    """The longest prefix of ``text`` (plus ``ellipsis``) whose measure fits ``limit``.

    Streaming previews use this: the preview of a reply longer than one message shows its start; the
    final delivery splits it properly.
    """
    if measure(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if measure(text[:mid] + ellipsis) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + ellipsis
