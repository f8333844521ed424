"""Token estimates and the prompt-budget assembler.

Estimate (no tokenizer needed, deliberately a little pessimistic): every CJK character (Han,
kana, hangul, CJK punctuation, full-width forms) counts as 1 token, every other run of characters
as ceil(len / 4) tokens, plus 4 tokens of framing per message. DeepSeek's and OpenAI's tokenizers
give 0.6–1.0 tokens per Chinese character and ~4 English characters per token, so the estimate
errs towards trimming a little early rather than overflowing the context.

Trimming order when the input is over budget: the oldest window messages first (a whole round at a
time, so the window never starts with an orphaned assistant reply), then the summary, then facts
(least relevant last in the list first), then the profile. The system rules and the current user
message are never trimmed; if they alone exceed the budget the input is sent as it is.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from core.llm.types import Message
from core.memory.blocks import MEMORY_RULES, facts_block

MESSAGE_OVERHEAD_TOKENS = 4


CJK_RANGES = (
    (0x2E80, 0x9FFF),  # CJK radicals, punctuation, kana, unified ideographs
    (0xAC00, 0xD7AF),  # hangul
    (0xF900, 0xFAFF),  # compatibility ideographs
    (0xFF00, 0xFFEF),  # full-width forms
    (0x20000, 0x2FFFF),  # extension B+
)
_CJK_RUN = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES) + "]+")


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: CJK characters 1 each, other runs ceil(len/4).

    The CJK characters are counted as runs found by one regular expression (a context is estimated
    several times while it is fitted: a loop over the characters in Python was most of the memory's
    own CPU per message).
    """
    cjk = sum(map(len, _CJK_RUN.findall(text)))
    other = len(text) - cjk
    return cjk + math.ceil(other / 4)


def message_tokens(message: Message) -> int:
    """Estimated tokens of one chat message, framing included."""
    content = message.get("content") or ""
    return MESSAGE_OVERHEAD_TOKENS + estimate_tokens(content if isinstance(content, str) else str(content))


@dataclass
class PromptParts:
    """The pieces of one model input before assembly.

    Attributes:
        rules: the system prompt (skill persona + guard rules); never trimmed.
        profile_block: the formatted inferred profile ("" when none).
        fact_blocks: formatted fact lines (blocks.fact_line), most relevant first.
        summary_message: the "[前情提要] …" system text ("" when none).
        window: past user/assistant messages, oldest first.
        current: the current user message; never trimmed.
    """

    rules: str
    current: Message
    profile_block: str = ""
    fact_blocks: list[str] = field(default_factory=list)
    summary_message: str = ""
    window: list[Message] = field(default_factory=list)

    def messages(self) -> list[Message]:
        """The model input in order: system, summary, window, current message."""
        pieces = [self.rules, MEMORY_RULES, self.profile_block, facts_block(self.fact_blocks)]
        system = "\n\n".join(p for p in pieces if p)
        out: list[Message] = [{"role": "system", "content": system}]
        if self.summary_message:
            out.append({"role": "system", "content": self.summary_message})
        return out + list(self.window) + [self.current]

    def tokens(self) -> int:
        """Estimated tokens of :meth:`messages`."""
        return sum(message_tokens(m) for m in self.messages())


def drop_oldest_round(window: list[Message]) -> list[Message]:
    """The window without its oldest message and any assistant replies that would lead it."""
    rest = window[1:]
    while rest and rest[0].get("role") != "user":
        rest = rest[1:]
    return rest


def fit_to_budget(parts: PromptParts, budget_tokens: int) -> PromptParts:
    """Trim ``parts`` until its estimate fits ``budget_tokens`` (see module docstring for order)."""
    parts = replace(parts, window=list(parts.window), fact_blocks=list(parts.fact_blocks))
    while parts.tokens() > budget_tokens and parts.window:
        parts.window = drop_oldest_round(parts.window)
    if parts.tokens() > budget_tokens:
        parts.summary_message = ""
    while parts.tokens() > budget_tokens and parts.fact_blocks:
        parts.fact_blocks.pop()
    if parts.tokens() > budget_tokens:
        parts.profile_block = ""
    return parts


def trim_to_tokens(text: str, max_tokens: int, marker: str = "…（已截断）") -> str:
    """``text`` cut so its estimate fits ``max_tokens`` (e.g. a long tool result); marked when cut."""
    if estimate_tokens(text) <= max_tokens:
        return text
    room = max(0, max_tokens - estimate_tokens(marker))
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits
        mid = (lo + hi + 1) // 2
        if estimate_tokens(text[:mid]) <= room:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + marker
