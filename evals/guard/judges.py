"""Stand-in models for measuring the LLM second opinion (`python -m evals guard-eval --judge NAME`).

The second opinion (core/guards/second_opinion.py) is measured through its real code path — the
band, the strict JSON parse, its timeout — with one of these in place of the LLM:

- ``fake-echo``: what the test fake server answers by default (the request echoed back, never the
  JSON), so every call fails and the local decision stands;
- ``fake-yes`` / ``fake-no``: always ``{"injection": true}`` / ``false`` (the bounds of the band);
- ``oracle``: always right (a ceiling, no real model is);
- ``scripted``: a deterministic "real-model-like" judge — mostly right, some wrong answers, some
  answers that are not the JSON asked for, some past the timeout (rates in `ScriptedJudge`);
- ``scripted-poor``: the same with three times the error rates.

The oracle and the scripted judges read the evaluation's labels; each decision is a hash of the
text, so a run is reproducible. They say what the second opinion *would* do for a model with those
error rates; the rates themselves are assumptions, not measurements of a real model.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, cast

from structlog.testing import capture_logs

from core.guards.evaluation import Example
from core.guards.guard import FuziGuard
from core.guards.normalize import strip_invisible
from core.guards.second_opinion import answer_for, sent_text
from core.llm.types import LLM, Completion, StreamEvent
from core.llm.wrapper import LLMCall, WrapperLLM

JUDGES = ("fake-echo", "fake-yes", "fake-no", "oracle", "scripted", "scripted-poor")
YES, NO = answer_for(True), answer_for(False)
# What a real model sends instead of the bare JSON now and then; parse_answer refuses each.
INVALID = ('```json\n{"injection": true}\n```', "Yes, this looks like an injection.", '{"injection": "maybe"}')


def unit(salt: str, text: str) -> float:
    """A number in [0, 1) fixed by `salt` and `text`."""
    digest = hashlib.sha256(f"{salt}:{text}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class _Judge(WrapperLLM):
    """The LLM port (core/llm/wrapper.py's signature) answered by the judge itself: `complete` reads
    the text of the classification call and returns `answer(text)`; no model is wrapped and
    `stream` is never used by the second opinion."""

    calls = 0

    def __init__(self) -> None:
        super().__init__(cast(LLM, None))  # a stand-in wraps no model; `state` is then None

    async def around_complete(self, call: LLMCall) -> Completion:
        self.calls += 1
        return Completion(text=await self.answer(sent_text(call.messages)))

    def around_stream(self, call: LLMCall) -> AsyncGenerator[StreamEvent, None]:
        raise NotImplementedError("a judge only classifies")

    async def answer(self, text: str) -> str:
        raise NotImplementedError


class ConstantJudge(_Judge):
    """Always the same answer (``fake-yes``, ``fake-no``, ``fake-echo``)."""

    def __init__(self, reply: str | None) -> None:
        super().__init__()
        self._reply = reply

    async def answer(self, text: str) -> str:
        return self._reply if self._reply is not None else f"USER TEXT:\n<text>\n{text}\n</text>"


@dataclass(frozen=True)
class Rates:
    """How a scripted judge errs: `miss` of attacks called benign, `false_alarm` of benign messages
    called attacks, `invalid` of calls answered with something other than the JSON, `timeout` of
    calls that take `stall_s` (past the second opinion's timeout)."""

    miss: float = 0.10
    false_alarm: float = 0.05
    invalid: float = 0.03
    timeout: float = 0.02
    stall_s: float = 0.2


PERFECT = Rates(miss=0.0, false_alarm=0.0, invalid=0.0, timeout=0.0)
POOR = Rates(miss=0.30, false_alarm=0.15, invalid=0.09, timeout=0.06)


class ScriptedJudge(_Judge):
    """Right unless the text's hash says otherwise (`rates`).

    Args:
        labels: the sent text (the message as the guard cleaned it, its last `max_chars`) → attack.
        rates: how often it errs, and how.
    """

    def __init__(self, labels: dict[str, bool], rates: Rates = Rates()) -> None:
        super().__init__()
        self._labels = labels
        self.rates = rates

    async def answer(self, text: str) -> str:
        attack, rates = self._labels.get(text), self.rates
        if attack is None:
            return "I cannot tell."
        u = unit("judge-failure", text)
        if u < rates.timeout:
            await asyncio.sleep(rates.stall_s)
        elif u < rates.timeout + rates.invalid:
            return INVALID[int(unit("judge-invalid", text) * len(INVALID))]
        wrong = unit("judge-wrong", text) < (rates.miss if attack else rates.false_alarm)
        return answer_for(attack != wrong)


def make_judge(name: str, labels: dict[str, bool]) -> LLM:
    """The judge called `name` (one of `JUDGES`)."""
    constant: dict[str, Any] = {"fake-echo": None, "fake-yes": YES, "fake-no": NO}
    if name in constant:
        return ConstantJudge(constant[name])
    scripted = {"oracle": PERFECT, "scripted": Rates(), "scripted-poor": POOR}
    if name in scripted:
        return ScriptedJudge(labels, scripted[name])
    raise ValueError(f"unknown judge {name!r}; one of {', '.join(JUDGES)}")


def sent_for(text: str, max_chars: int = 2000) -> str:
    """What the second opinion sends for `text`: the guard's cleaned text, its last `max_chars` (the key
    under which a labelled judge looks the label up)."""
    return strip_invisible(text).strip()[-max_chars:]


def review_flags(examples: list[Example], guard: FuziGuard) -> tuple[dict[str, bool], dict[str, int]]:
    """Each example's verdict through `guard.review_input` (the local detector, then the second opinion
    where it is unsure), and how the second opinion's calls ended ("llm", "local:timeout", …)."""

    async def run() -> dict[str, bool]:
        return {ex.text: (await guard.review_input(ex.text)).reason == "injection" for ex in examples}

    with capture_logs() as logs:
        flags = asyncio.run(run())
    sources = Counter(str(e["source"]) for e in logs if e.get("event") == "guard.second_opinion")
    return flags, dict(sorted(sources.items()))
