"""Stand-in models for measuring the LLM second opinion (`fuzi guard-eval --judge NAME`).

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
import json
import re
from collections.abc import AsyncGenerator
from typing import Any

from core.llm.types import LLM, Completion, Message, StreamEvent

JUDGES = ("fake-echo", "fake-yes", "fake-no", "oracle", "scripted", "scripted-poor")
YES, NO = json.dumps({"injection": True}), json.dumps({"injection": False})
# What a real model sends instead of the bare JSON now and then; parse_answer refuses each.
INVALID = ('```json\n{"injection": true}\n```', "Yes, this looks like an injection.", '{"injection": "maybe"}')
_SENT = re.compile(r"<text>\n(.*)\n</text>", re.DOTALL)


def unit(salt: str, text: str) -> float:
    """A number in [0, 1) fixed by `salt` and `text`."""
    digest = hashlib.sha256(f"{salt}:{text}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class _Judge:
    """An `LLM` whose `complete` answers the classification call; `stream` is never used by it."""

    calls = 0

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        self.calls += 1
        found = _SENT.search(str(messages[-1]["content"]))
        return Completion(text=await self.answer(found.group(1) if found else ""))

    async def answer(self, text: str) -> str:
        raise NotImplementedError

    async def stream(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        raise NotImplementedError("a judge only classifies")
        yield  # pragma: no cover - makes this an async generator


class ConstantJudge(_Judge):
    """Always the same answer (``fake-yes``, ``fake-no``, ``fake-echo``)."""

    def __init__(self, reply: str | None) -> None:
        self._reply = reply

    async def answer(self, text: str) -> str:
        return self._reply if self._reply is not None else f"USER TEXT:\n<text>\n{text}\n</text>"


class ScriptedJudge(_Judge):
    """Right unless the text's hash says otherwise.

    Args:
        labels: the sent text (the message as the guard cleaned it, its last `max_chars`) → attack.
        miss: share of attacks it calls benign.
        false_alarm: share of benign messages it calls attacks.
        invalid: share of calls answered with something other than the JSON.
        timeout: share of calls that take `stall_s` (past the second opinion's timeout).
    """

    def __init__(
        self,
        labels: dict[str, bool],
        *,
        miss: float = 0.10,
        false_alarm: float = 0.05,
        invalid: float = 0.03,
        timeout: float = 0.02,
        stall_s: float = 0.2,
    ) -> None:
        self._labels = labels
        self.miss, self.false_alarm, self.invalid, self.timeout = miss, false_alarm, invalid, timeout
        self._stall_s = stall_s

    async def answer(self, text: str) -> str:
        attack = self._labels.get(text)
        if attack is None:
            return "I cannot tell."
        u = unit("judge-failure", text)
        if u < self.timeout:
            await asyncio.sleep(self._stall_s)
        elif u < self.timeout + self.invalid:
            return INVALID[int(unit("judge-invalid", text) * len(INVALID))]
        wrong = unit("judge-wrong", text) < (self.miss if attack else self.false_alarm)
        return YES if attack != wrong else NO


def make_judge(name: str, labels: dict[str, bool]) -> LLM:
    """The judge called `name` (one of `JUDGES`)."""
    constant: dict[str, Any] = {"fake-echo": None, "fake-yes": YES, "fake-no": NO}
    if name in constant:
        return ConstantJudge(constant[name])
    if name == "oracle":
        return ScriptedJudge(labels, miss=0.0, false_alarm=0.0, invalid=0.0, timeout=0.0)
    if name == "scripted":
        return ScriptedJudge(labels)
    if name == "scripted-poor":
        return ScriptedJudge(labels, miss=0.30, false_alarm=0.15, invalid=0.09, timeout=0.06)
    raise ValueError(f"unknown judge {name!r}; one of {', '.join(JUDGES)}")
