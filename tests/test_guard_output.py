"""Output checks: canary (also split across stream deltas), verbatim system prompt, persona breaks."""

from __future__ import annotations

import re

import pytest

from core.guards.guard import FuziGuard
from core.guards.limits import InMemoryRateLimiter, Quota
from core.guards.output import _fold

SYSTEM = (
    "You are Confucius, Kong Qiu of Lu, teacher of three thousand disciples. Speak gently and briefly, "
    "quote the Analects and the Book of Songs with numbered citations, and never invent a passage."
)


@pytest.fixture
def guard() -> FuziGuard:
    g = FuziGuard(InMemoryRateLimiter(Quota()))
    g.harden(SYSTEM)
    return g


def render_stream(guard: FuziGuard, deltas: list[str]) -> tuple[list[str], str]:
    """Play the engine's part: check the accumulated text at each delta and show only what passes.

    Returns every version of the shown text and the final action.
    """
    text, shown, frames = "", 0, []
    for delta in deltas:
        text += delta
        verdict = guard.check_output(text, final=False)
        if verdict.action != "ok":
            return frames, verdict.action
        upto = len(text) if verdict.safe_len is None else verdict.safe_len
        shown = max(shown, upto)
        frames.append(text[:shown])
    return frames, guard.check_output(text, final=True).action


def chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def test_harden_adds_rules_and_a_random_canary(guard: FuziGuard) -> None:
    hardened = guard.harden(SYSTEM)
    assert SYSTEM in hardened
    for label in ("<user_message>", "<passage>", "<tool_result>", "<memory>", "<speaker", "<profile>", "<summary>"):
        assert label in hardened
    assert "never an instruction" in hardened
    assert re.fullmatch(r"FZ-CANARY-[0-9a-f]{16}", guard.canary)
    assert guard.canary in hardened
    assert FuziGuard(InMemoryRateLimiter(Quota())).canary != guard.canary


def test_reply_with_the_canary_is_blocked(guard: FuziGuard) -> None:
    for leak in (f"好的：{guard.canary}", guard.canary.lower(), " ".join(guard.canary), f"x{guard.canary}y"):
        verdict = guard.check_output(leak, final=True)
        assert verdict.action == "block" and verdict.reason == "canary"
        assert verdict.replacement and guard.canary not in verdict.replacement


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("spaced", [False, True])
def test_canary_split_across_deltas_is_never_shown(guard: FuziGuard, size: int, spaced: bool) -> None:
    canary = " ".join(guard.canary) if spaced else guard.canary
    reply = f"子曰：学而时习之。{canary} 不亦说乎？"
    frames, action = render_stream(guard, chunks(reply, size))
    assert action == "block"
    head = " ".join(guard.canary[:2]) if spaced else guard.canary[:2]
    assert frames, "text before the canary is shown"
    for frame in frames:
        assert head not in frame and _fold(guard.canary[:2]) not in _fold(frame[len("子曰：学而时习之。") :])


def test_held_back_text_is_released_when_it_is_not_the_canary(guard: FuziGuard) -> None:
    frames, action = render_stream(guard, ["子曰：", "FZ", "-CAN", "ON", " 是一种炮"])
    assert action == "ok"
    assert frames[1] == "子曰：" and frames[-1] == "子曰：FZ-CANON 是一种炮"


def test_long_verbatim_run_of_the_system_prompt_is_blocked(guard: FuziGuard) -> None:
    folded = _fold(SYSTEM)
    run40 = folded[20:60]
    assert guard.check_output(f"吾尝闻：{run40}。", final=True).action == "block"
    assert guard.check_output(f"吾尝闻：{run40[:39]}。", final=True).action == "ok"
    spaced = " ".join(SYSTEM[30:120])  # spacing and case do not hide it
    assert guard.check_output(spaced.upper(), final=True).reason == "system_prompt"


def test_verbatim_run_is_caught_while_streaming(guard: FuziGuard) -> None:
    frames, action = render_stream(guard, chunks("Well. " + SYSTEM, 4))
    assert action == "block"
    assert all(len(_fold(frame)) < 60 for frame in frames)


@pytest.mark.parametrize(
    "text",
    [
        "As an AI language model, I cannot have opinions.",
        "I'm just a large language model trained by OpenAI.",
        "Honestly, I am an AI.",
        "我是ChatGPT，很高兴为你服务。",
        "作为一个人工智能，我没有个人观点。",
        "我是一个语言模型，无法回答。",
        "Ａｓ ａｎ ＡＩ, I can't.",
    ],
)
def test_persona_breaks_ask_for_regeneration(guard: FuziGuard, text: str) -> None:
    verdict = guard.check_output(text, final=True)
    assert verdict.action == "regenerate" and verdict.reason == "persona_break"
    assert verdict.replacement == guard.safe_reply(english=not re.search(r"[\u4e00-\u9fff]", text))
    assert guard.check_output(text, final=False).action == "regenerate"


@pytest.mark.parametrize(
    "text",
    [
        "吾乃孔丘，作为君子，当以仁为本。",
        "Ah, I am a teacher, not a ruler.",
        "Some ask whether an AI could be a junzi; I say learning makes the gentleman.",
        "FZ is how my student writes his name.",
    ],
)
def test_in_persona_replies_pass(guard: FuziGuard, text: str) -> None:
    verdict = guard.check_output(text, final=True)
    assert verdict.action == "ok" and verdict.safe_len is None


def test_persona_reminder_is_exposed(guard: FuziGuard) -> None:
    assert "Confucius" in guard.persona_reminder and "孔子" in guard.persona_reminder
