"""The daily passage (每日一章): the next passage of the chat's rotation, its citation, its text and a
short explanation from the LLM — or the text with a one-line note when the LLM is down or slow.

A daily passage is never skipped for want of a model: the explanation gets `EXPLAIN_TIMEOUT_S` and
`EXPLAIN_MAX_TOKENS`; any failure (breaker open, timeout, error, empty answer) gives the note instead.
The chat's skill shapes the explanation; its script (Traditional) is applied to the whole message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

import structlog

from core.llm.types import LLM
from core.schedule.ports import ChatSchedule
from core.schedule.store import RotationRepo
from core.skills import SkillRegistry
from core.types import Passage

log = structlog.get_logger(__name__)

EXPLAIN_TIMEOUT_S = 20.0
"""The explanation's whole budget; later, the passage goes out with the note (never skipped)."""
EXPLAIN_MAX_TOKENS = 320
"""Token budget of one explanation (about 150–200 Chinese characters)."""

HEADER = "【每日一章】"
NO_EXPLANATION = "（今日夫子未及讲解，先读原文；有疑处，可随时问我。）"

_FOCUS = {
    "teaching": "用两三句白话讲清这段原文的意思，再联系今人的一件平常事。",
    "poetry": "用两三句讲这首诗（或这段话）的意象与情致，点出一句最值得吟味的。",
    "debate": "用两句讲清原文的意思，再提一个值得群友思辨的问题。",
}
_DEFAULT_FOCUS = _FOCUS["teaching"]

Convert = Callable[[str, str], str]
"""`convert(text, script)`: the text in the chat's script ("simplified" leaves it as it is)."""


def keep_script(text: str, script: str) -> str:
    """The conversion used until a script converter is wired in: text unchanged."""
    return text


@dataclass(frozen=True)
class Composed:
    """A daily post ready to send."""

    text: str
    passage_id: str
    explained: bool


class DailyPassage:
    """Composes a chat's daily passage.

    Args:
        passages: every passage of every book (core.books.load_corpus).
        rotation: which passages each chat was shown.
        skills: the skill registry (the chat's skill shapes the explanation).
        llm: the model behind its breaker, or None (no model configured: always the note).
        convert: the script conversion (Traditional); see `Convert`.
        timeout_s / max_tokens: the explanation's budget.
    """

    def __init__(
        self,
        passages: Sequence[Passage],
        rotation: RotationRepo,
        skills: SkillRegistry,
        llm: LLM | None,
        *,
        convert: Convert = keep_script,
        timeout_s: float = EXPLAIN_TIMEOUT_S,
        max_tokens: int = EXPLAIN_MAX_TOKENS,
    ) -> None:
        self._by_id = {p.id: p for p in passages}
        self._ids = sorted(self._by_id)
        self._rotation, self._skills, self._llm = rotation, skills, llm
        self._convert, self._timeout_s, self._max_tokens = convert, timeout_s, max_tokens

    async def pick(self, chat: ChatSchedule, local_date: date) -> Passage:
        """The chat's next passage (not shown before in this round) from the books it chose (every
        book by default; a choice whose books are all missing falls back to every book); the same
        date draws the same one."""
        ids = self._ids
        if chat.books:
            ids = [i for i in self._ids if i.split(":", 1)[0] in chat.books] or self._ids
        passage_id = await self._rotation.next_passage(chat.chat_key, ids, f"{chat.chat_key}:{local_date}")
        return self._by_id[passage_id]

    async def compose(self, chat: ChatSchedule, local_date: date) -> Composed:
        passage = await self.pick(chat, local_date)
        explanation = await self.explain(passage, chat)
        body = f"{HEADER}{passage.ref}\n\n{passage.text}\n\n{explanation or NO_EXPLANATION}"
        return Composed(self._convert(body, chat.script), passage.id, explanation is not None)

    async def mark_shown(self, chat: ChatSchedule, passage_id: str) -> None:
        await self._rotation.mark_seen(chat.chat_key, passage_id)

    async def explain(self, passage: Passage, chat: ChatSchedule) -> str | None:
        """The model's short explanation in the persona, or None (no model, failure, timeout, empty)."""
        if self._llm is None:
            return None
        skill = self._skills.get(chat.skill)
        focus = _FOCUS.get(skill.name, _DEFAULT_FOCUS)
        messages = [
            {"role": "system", "content": skill.system_prompt},
            {
                "role": "user",
                "content": (
                    f"今天在群里与大家共读{passage.ref}：\n{passage.text}\n\n"
                    f"请以夫子口吻{focus}全文不超过一百五十字，不要复述原文，不加编号。"
                ),
            },
        ]
        try:
            completion = await asyncio.wait_for(
                self._llm.complete(messages, max_tokens=self._max_tokens, temperature=0.7), self._timeout_s
            )
        except Exception as exc:  # breaker open, timeout, provider error: the passage still goes out
            log.warning("daily_explanation_unavailable", chat=chat.chat_key, error=type(exc).__name__)
            return None
        text = (completion.text or "").strip()
        return text or None
