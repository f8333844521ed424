"""Checks on what the model wrote, before anything reaches the user.

- Canary: a random per-process marker sits in the hardened system prompt; a reply containing it
  (also spaced out, in another case or full-width) is a leak → block.
- Verbatim run: ≥ `min_run` consecutive characters of a registered system prompt (compared after
  removing spaces/punctuation and case-folding) → block.
- Persona break ("As an AI language model", 我是ChatGPT, 作为一个人工智能 …) → regenerate.

Streaming: `check(text, final=False)` looks at the whole text for the canary (a C-speed substring
search) but only at the last `stream_window` characters for the other checks; the engine calls it
on the accumulated text at every edit, so each part of the text is seen. When the text *ends* with
the start of the canary, the verdict is "ok" with `safe_len` set: show only `text[:safe_len]`.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass

from core.guards.normalize import strip_invisible

_NON_ALNUM = re.compile(r"[\W_]+", re.UNICODE)  # also matches invisible (Cf/Cc/Co) characters
# Characters NFKC turns into ASCII letters/digits: full-width forms, circled/parenthesised
# alphanumerics, superscripts, ligatures and mathematical alphanumerics.
_COMPAT_ALNUM = re.compile(
    "[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\u2460-\u24ff\u2070-\u209f\ufb00-\ufb06"
    "\U0001d400-\U0001d7ff\U0001f100-\U0001f1ff]"
)

# Persona breaks: (anchor, pattern matched where the anchor occurs in the case-folded text).
# Plain substring search for the anchors keeps the per-delta check cheap.
_AI = (
    r"(?:ai\b|artificial\s*intelligence|(?:large\s*)?language\s*model|chatbot|chatgpt|gpt|deepseek|"
    r"virtual\s*assistant|ai\s*assistant|computer\s*program)"
)
_HEDGE = r"(?:just\s*|only\s*|merely\s*|actually\s*|really\s*|simply\s*)?"
_ZH_AI = "(?:人工智能|ai|语言模型|大语言模型|大模型|聊天机器人|智能助手|ai助手|人工智能助手|虚拟助手|程序|机器人)"
_MAKERS = "(?:openai|deepseek|深度求索|anthropic|谷歌|google|meta)"
_I_AM = r"i\s*(?:am|'m|’m)\s*"
_PERSONA_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (anchor, re.compile(pattern))
    for anchor, pattern in (
        ("as a", r"as\s*an?\s*(?:large\s*)?(?:ai\b|artificial\s*intelligence|language\s*model)"),
        ("i am", rf"{_I_AM}{_HEDGE}(?:an?\s*)?{_AI}|{_I_AM}not\s*{_HEDGE}confucius"),
        ("i'm", rf"{_I_AM}{_HEDGE}(?:an?\s*)?{_AI}|{_I_AM}not\s*{_HEDGE}confucius"),
        ("i’m", rf"{_I_AM}{_HEDGE}(?:an?\s*)?{_AI}|{_I_AM}not\s*{_HEDGE}confucius"),
        ("i was", rf"i\s*was\s*(?:created|developed|trained|built|made)\s*by\s*{_MAKERS}"),
        ("i have been", rf"i\s*have\s*been\s*(?:created|developed|trained|built|made)\s*by\s*{_MAKERS}"),
        ("my training", r"my\s*training\s*data"),
        ("my knowledge", r"my\s*knowledge\s*cut-?\s*off"),
        ("我是", rf"我是\s*(?:chatgpt|gpt|deepseek|openai|claude|一?[个名]?{_ZH_AI}|由{_MAKERS})"),
        ("我只是", rf"我只是一?[个名]?{_ZH_AI}"),
        ("作为", rf"作为一?[个名]?{_ZH_AI}"),
        ("我由", rf"我由{_MAKERS}"),
        ("我的训练数据", "我的训练数据"),
        ("不是真正的孔子", "不是真正的孔子"),
        ("其实不是孔子", "其实不是孔子"),
    )
)


def _persona_break(text: str) -> bool:
    """True when the text speaks as an AI, a model or a product instead of as Confucius."""
    low = text.casefold()
    if _COMPAT_ALNUM.search(low):
        low = unicodedata.normalize("NFKC", low)
    for anchor, pattern in _PERSONA_RULES:
        pos = low.find(anchor)
        while pos != -1:
            at_word = not anchor.isascii() or pos == 0 or not low[pos - 1].isalpha()
            if at_word and pattern.match(low, pos):
                return True
            pos = low.find(anchor, pos + 1)
    return False


def new_canary() -> str:
    """A fresh random canary, e.g. ``FZ-CANARY-3f9a0c1b2d4e5f60``."""
    return f"FZ-CANARY-{secrets.token_hex(8)}"


def _fold(text: str) -> str:
    """Case-folded text without spaces, punctuation or invisible characters.

    NFKC (slow on CJK text) runs only when the text holds characters it would turn into letters
    or digits (full-width Latin letters and digits, circled and other compatibility forms).
    """
    if _COMPAT_ALNUM.search(text):
        text = unicodedata.normalize("NFKC", text)
    return _NON_ALNUM.sub("", text.casefold())


@dataclass(frozen=True)
class OutputFinding:
    """What `OutputChecker.check` found: action "ok" / "block" / "regenerate", why, hold-back length."""

    action: str
    reason: str | None = None
    safe_len: int | None = None


class OutputChecker:
    """Canary, verbatim-prompt and persona-break checks.

    Args:
        canary: the marker placed in the system prompt (random when None).
        min_run: shortest verbatim run of the system prompt that counts as a leak.
        stream_window: characters re-checked at the end of the text while streaming.
        max_prompts: distinct system prompts remembered (least recently used dropped first).
    """

    def __init__(
        self,
        canary: str | None = None,
        *,
        min_run: int = 40,
        stream_window: int = 600,
        max_prompts: int = 32,
    ) -> None:
        self.canary = canary or new_canary()
        self._canary_folded = _fold(self.canary)
        self.min_run = min_run
        self.stream_window = max(stream_window, min_run * 2)
        self._max_prompts = max_prompts
        # Any run of `min_run` chars contains a k-gram starting at a multiple of k (k = min_run // 2),
        # so the reply is sampled every k chars and each hit is verified by extending it.
        self._gram = max(min_run // 2, 1)
        self._prompts: OrderedDict[str, frozenset[str]] = OrderedDict()

    def register_prompt(self, prompt: str) -> None:
        """Remember `prompt` so verbatim runs of it are caught (an index of its k-grams)."""
        folded = _fold(prompt.replace(self.canary, ""))
        if folded in self._prompts:
            self._prompts.move_to_end(folded)
            return
        k = self._gram
        self._prompts[folded] = frozenset(folded[i : i + k] for i in range(len(folded) - k + 1))
        while len(self._prompts) > self._max_prompts:
            self._prompts.popitem(last=False)

    def check(self, text: str, *, final: bool) -> OutputFinding:
        """Check the accumulated reply `text`; see the module docstring for streaming."""
        tail = text if final else text[-self.stream_window :]
        folded = _fold(tail)
        if self.canary in text or self._canary_folded in folded:
            return OutputFinding("block", "canary")
        if self._verbatim_run(folded):
            return OutputFinding("block", "system_prompt")
        if _persona_break(strip_invisible(tail) if final else tail):
            return OutputFinding("regenerate", "persona_break")
        if not final:
            held = self._held_from(text)
            if held is not None:
                return OutputFinding("ok", "hold_back", held)
        return OutputFinding("ok")

    def _verbatim_run(self, folded: str) -> bool:
        k, n = self._gram, self.min_run
        if len(folded) < n:
            return False
        for start in range(0, len(folded) - k + 1, k):
            gram = folded[start : start + k]
            for prompt, grams in self._prompts.items():
                if gram in grams and _longest_run(folded, start, prompt, gram) >= n:
                    return True
        return False

    def _held_from(self, text: str) -> int | None:
        """Index where an unfinished canary starts at the very end of `text` (≥ 2 folded chars).

        Compared folded, so a canary being spelled out with spaces or in full-width is held too.
        """
        target = self._canary_folded
        tail_start = max(0, len(text) - 3 * len(self.canary))
        folded = _fold(text[tail_start:])
        longest = min(len(target) - 1, len(folded))
        k = next((k for k in range(longest, 1, -1) if folded.endswith(target[:k])), 0)
        if not k:
            return None
        chars = [i for i in range(tail_start, len(text)) for _ in _fold(text[i])]
        return chars[len(chars) - k]


def _longest_run(text: str, start: int, prompt: str, gram: str) -> int:
    """Longest common run through text[start:start+len(gram)] and any occurrence of it in prompt."""
    k, best, pos = len(gram), 0, prompt.find(gram)
    while pos != -1:
        left = 0
        while start - left > 0 and pos - left > 0 and text[start - left - 1] == prompt[pos - left - 1]:
            left += 1
        right = 0
        while (
            start + k + right < len(text)
            and pos + k + right < len(prompt)
            and (text[start + k + right] == prompt[pos + k + right])
        ):
            right += 1
        best = max(best, left + k + right)
        pos = prompt.find(gram, pos + 1)
    return best
