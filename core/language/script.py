"""Simplified and Traditional Chinese: which one a reader wants, and the conversion (OpenCC).

OpenCC (the official `opencc` binding: a compiled library, phrase-level dictionaries) converts the
answer into Traditional when the chat set `script traditional`, or — with no setting (`auto`) —
when the person's own message is clearly written in Traditional. The standard OpenCC Traditional
(`s2t`) is used rather than a regional variant: the classics are quoted in their standard forms.

Only what Fuzi says is converted: streamed text, the final answer and its citations (the passage
text and the reference; the passage ids stay the same). Command replies and notices stay as they are.

OpenCC converts by phrases (头发 → 頭髮, but 发 alone → 發), so the streamed text is never converted
delta by delta: `ReplyScript` converts it on phrase boundaries (punctuation or white space: no
OpenCC phrase spans one), each finished clause as a whole, holding back the clause still being
written. Every preview is then the start of what the final — converted whole — shows.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import TYPE_CHECKING

import structlog

from core.events import Citation, FinalReply, ReplyEvent, TextDelta, TextReset
from core.language import Script

if TYPE_CHECKING:
    import opencc

log = structlog.get_logger(__name__)

_HAN = re.compile(r"[\u3400-\u9fff]")
_BOUNDARY = re.compile(r"[\s，。！？；：、,.!?;:…—（）()「」『』“”‘’《》〈〉【】\[\]]")
"""Where a phrase ends: OpenCC's phrases are runs of Han characters, never across these."""


class ScriptConverter:
    """Both directions of OpenCC, built once (bot/wiring) and shared; Traditional at its first use.

    Args:
        to_traditional: the OpenCC configuration for Simplified → Traditional (`s2t`, or `s2tw`,
            `s2hk`, `s2twp` for regional forms).
    """

    def __init__(self, to_traditional: str = "s2t"):
        import opencc  # the binding loads its dictionaries at construction

        self._t2s = opencc.OpenCC("t2s.json")
        self._s2t_config = f"{to_traditional}.json"

    @functools.cached_property
    def _s2t(self) -> opencc.OpenCC:
        """The Simplified → Traditional converter, loaded at the first Traditional text: its
        dictionaries take 70–80 ms, and a reader of Simplified never needs them (`t2s` takes 6 ms).
        Two threads arriving together may both load it; one result is kept, the other dropped."""
        import opencc

        return opencc.OpenCC(self._s2t_config)

    def traditional(self, text: str) -> str:
        """`text` in Traditional characters."""
        return self._s2t.convert(text) if text else text

    def simplified(self, text: str) -> str:
        """`text` in Simplified characters (e.g. a Traditional query before searching the corpus)."""
        return self._t2s.convert(text) if text else text

    def is_traditional(self, text: str) -> bool:
        """True when `text` is clearly written in Traditional: it has characters that only exist in
        Traditional (they change under Traditional → Simplified) — at least two, or one in a very short
        message — and at least three times as many as Simplified-only characters."""
        sample = text[:2000]
        han = len(_HAN.findall(sample))
        if not han:
            return False
        trad = _differing(sample, self.simplified(sample))
        if not trad:  # no Traditional-only character: Simplified, whatever the other count
            return False
        simp = _differing(sample, self.traditional(sample))
        return trad >= 3 * simp and (trad >= 2 or (trad == 1 and han <= 6))

    def reply_script(self, chosen: Script | None, text: str) -> Script:
        """The script of the answer: the chat's choice, else the script the person wrote in."""
        if chosen is not None:
            return chosen
        return "traditional" if self.is_traditional(text) else "simplified"

    def reply(self, script: Script) -> ReplyScript:
        """One reply's events as the reader should see them, in `script` (a new one per reply)."""
        return ReplyScript(self, script)

    def final(self, event: FinalReply) -> FinalReply:
        """A final answer in Traditional: its text converted whole, its citations too."""
        cites = tuple(self.citation(c) for c in event.citations)
        return replace(event, text=self.traditional(event.text), citations=cites)

    def citation(self, citation: Citation) -> Citation:
        """A citation in Traditional: text and reference converted, the passage id kept."""
        return replace(citation, text=self.traditional(citation.text), ref=self.traditional(citation.ref))


class ReplyScript:
    """One reply's events in its script; in Traditional, previews agree with the final.

    The deltas (Simplified, as the model wrote them) are gathered; once a phrase boundary arrives,
    the text since the last one shown is converted as a whole and shown — when that conversion also
    starts the conversion of everything received after that boundary (the longest context known).
    No phrase spans a boundary, so what is shown equals the conversion of the whole text so far, at a
    cost linear in the reply's length. A `TextReset` starts over. Should a conversion ever disagree,
    no more previews come for this reply: the final text replaces them. Only answer text and
    citations change; other events pass as they are.

    Args:
        scripts: the converter.
        script: the reader's script; "simplified" passes every event through.
    """

    def __init__(self, scripts: ScriptConverter, script: Script):
        self._scripts, self.script = scripts, script
        self._source = ""  # the streamed text as written (Simplified)
        self._shown = ""  # its converted start, already sent as deltas
        self._end = 0  # where the shown part ends in `_source`
        self._stuck = False

    def events(self, event: ReplyEvent) -> list[ReplyEvent]:
        """What to send for `event`: nothing (a held-back clause), one event, or the event as it is."""
        if self.script == "simplified":
            return [event]
        if isinstance(event, TextDelta):
            self._source += event.text
            more = self._preview()
            return [TextDelta(more)] if more else []
        if isinstance(event, TextReset):
            self._source, self._shown, self._end, self._stuck = "", "", 0, False
        elif isinstance(event, FinalReply):
            return [self._scripts.final(event)]
        return [event]

    def _preview(self) -> str:
        """The new converted text to show (up to the last boundary), or ""."""
        start = self._end
        end = _phrase_end(self._source, start)
        if self._stuck or end <= start:  # no new boundary: nothing new to show
            return ""
        self._end = end
        convert = self._scripts.traditional
        more = convert(self._source[start:end])  # no phrase spans `start`: the text before it stays as shown
        if not convert(self._source[start:]).startswith(more):  # the text after `end` would change it
            self._stuck = True
            log.warning("script_preview_stopped", chars=len(self._source))
            return ""
        self._shown += more
        return more


def _phrase_end(text: str, start: int = 0) -> int:
    """The length of `text` up to and including its last phrase boundary at or after `start`
    (`start` when there is none there)."""
    for index in range(len(text) - 1, start - 1, -1):
        if _BOUNDARY.match(text[index]):
            return index + 1
    return start


def _differing(a: str, b: str) -> int:
    """How many Han characters differ between `a` and its conversion `b` (same length, or compared by position)."""
    return sum(1 for x, y in zip(a, b) if x != y and _HAN.match(x))
