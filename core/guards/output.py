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

_NON_ALNUM = re.compile(r"[\W_]+", re.UNICODE)

_PERSONA_BREAK = re.compile(
    r"as\s*an?\s*(?:ai|artificial\s*intelligence)\b|as\s*an?\s*(?:large\s*)?language\s*model|"
    r"\bi\s*(?:am|'m|’m)\s*(?:just\s*|only\s*|merely\s*|actually\s*|really\s*)?(?:an?\s*)?"
    r"(?:ai\b|artificial\s*intelligence|(?:large\s*)?language\s*model|chatbot|chatgpt|gpt|deepseek|"
    r"virtual\s*assistant|ai\s*assistant)|\bi\s*(?:was|have\s*been)\s*(?:created|developed|trained|built|"
    r"made)\s*by\s*(?:openai|deepseek|anthropic|google|meta)|\bmy\s*(?:training\s*data|knowledge\s*"
    r"cut-?off)|\bi\s*(?:am|'m|’m)\s*not\s*(?:actually|really)\s*confucius|"
    r"我是\s*(?:chatgpt|gpt|deepseek|openai|claude)|我(?:只)?是一?个?(?:人工智能|ai|语言模型|大语言模型|大模型|"
    r"聊天机器人|智能助手|ai助手|人工智能助手|虚拟助手|程序)|作为一?[个名]?(?:人工智能|ai|语言模型|大语言模型|"
    r"大模型|ai助手|人工智能助手|聊天机器人)|我(?:是)?由(?:openai|深度求索|deepseek|谷歌|anthropic)"
    r"(?:公司)?(?:开发|训练|创建|打造)|我的训练数据|我并?不是真正的孔子|我其实不是孔子",
    re.IGNORECASE,
)


def new_canary() -> str:
    """A fresh random canary, e.g. ``FZ-CANARY-3f9a0c1b2d4e5f60``."""
    return f"FZ-CANARY-{secrets.token_hex(8)}"


def _fold(text: str) -> str:
    """Case-folded NFKC text without spaces, punctuation or invisible characters."""
    text = strip_invisible(unicodedata.normalize("NFKC", text)).casefold()
    return _NON_ALNUM.sub("", text)


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
        stream_window: int = 1200,
        max_prompts: int = 32,
    ) -> None:
        self.canary = canary or new_canary()
        self._canary_folded = _fold(self.canary)
        self.min_run = min_run
        self.stream_window = max(stream_window, min_run * 2)
        self._max_prompts = max_prompts
        self._shingles: OrderedDict[str, frozenset[int]] = OrderedDict()

    def register_prompt(self, prompt: str) -> None:
        """Remember `prompt` so verbatim runs of it are caught (hashes of every `min_run` window)."""
        folded = _fold(prompt.replace(self.canary, ""))
        if folded in self._shingles:
            self._shingles.move_to_end(folded)
            return
        n = self.min_run
        self._shingles[folded] = frozenset(hash(folded[i : i + n]) for i in range(len(folded) - n + 1))
        while len(self._shingles) > self._max_prompts:
            self._shingles.popitem(last=False)

    def check(self, text: str, *, final: bool) -> OutputFinding:
        """Check the accumulated reply `text`; see the module docstring for streaming."""
        if self._leaks_canary(text):
            return OutputFinding("block", "canary")
        tail = text if final else text[-self.stream_window :]
        folded = _fold(tail)
        if self._verbatim_run(folded):
            return OutputFinding("block", "system_prompt")
        if _PERSONA_BREAK.search(unicodedata.normalize("NFKC", tail)):
            return OutputFinding("regenerate", "persona_break")
        if not final:
            held = self._held_from(text)
            if held is not None:
                return OutputFinding("ok", "hold_back", held)
        return OutputFinding("ok")

    def _leaks_canary(self, text: str) -> bool:
        if self.canary in text or self.canary.casefold() in text.casefold():
            return True
        return self._canary_folded in _fold(text)

    def _verbatim_run(self, folded: str) -> bool:
        n = self.min_run
        if len(folded) < n or not self._shingles:
            return False
        windows = {hash(folded[i : i + n]) for i in range(len(folded) - n + 1)}
        return any(not windows.isdisjoint(sh) for sh in self._shingles.values())

    def _held_from(self, text: str) -> int | None:
        """Index where an unfinished canary starts at the very end of `text` (≥ 2 folded chars).

        Compared folded, so a canary being spelled out with spaces or in full-width is held too.
        """
        target = self._canary_folded
        tail_start = max(0, len(text) - 3 * len(self.canary))
        chars = [(i, f) for i in range(tail_start, len(text)) for f in _fold(text[i])]
        folded = "".join(f for _, f in chars)
        for k in range(min(len(target) - 1, len(folded)), 1, -1):
            if folded.endswith(target[:k]):
                return chars[len(chars) - k][0]
        return None
