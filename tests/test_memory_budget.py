"""Token estimate and the budget assembler: oldest window turns go first; rules and current stay."""

from __future__ import annotations

from core.memory import MemoryConfig
from core.memory.budget import CJK_RANGES, PromptParts, estimate_tokens, fit_to_budget, message_tokens
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.test_memory_fixtures import SYSTEM, all_text, dm, make_engine, script  # noqa: F401


def test_estimate_counts_cjk_per_character_and_latin_per_four():
    assert estimate_tokens("学而时习之") == 5
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("子曰: learn") == 2 + 2  # "子曰" + ceil(len(": learn") / 4)
    assert estimate_tokens("，。！") == 3  # CJK punctuation
    assert message_tokens({"role": "user", "content": "abcd"}) == 1 + 4


def test_every_edge_of_the_cjk_ranges_counts_as_one_token_and_its_neighbour_outside_as_a_quarter():
    for lo, hi in CJK_RANGES:
        assert estimate_tokens(chr(lo) + chr(hi)) == 2
        assert estimate_tokens(chr(lo - 1) * 4 + chr(hi + 1) * 4) == 2
        assert estimate_tokens("ab" + chr(lo) + "cd" + chr(hi) + "e") == 2 + 2  # runs split by CJK add up


def window(n_rounds: int, size: int = 50) -> list[dict]:
    out = []
    for n in range(n_rounds):
        out += [
            {"role": "user", "content": f"问{n}" + "字" * size},
            {"role": "assistant", "content": f"答{n}" + "字" * size},
        ]
    return out


def parts(**kw) -> PromptParts:
    base = dict(rules="规" * 100, current={"role": "user", "content": "今" * 100}, window=window(5))
    return PromptParts(**{**base, **kw})


def test_oldest_rounds_are_trimmed_first_and_whole():
    p = parts()
    full = p.tokens()
    fitted = fit_to_budget(p, full - 60)  # a bit less than one round must go
    assert [m["content"][:2] for m in fitted.window] == ["问1", "答1", "问2", "答2", "问3", "答3", "问4", "答4"]
    assert fitted.window[0]["role"] == "user"
    msgs = fitted.messages()
    assert msgs[0]["content"].startswith("规" * 100) and msgs[-1]["content"] == "今" * 100
    assert len(p.window) == 10  # the input is not modified


def test_then_summary_then_facts_then_profile_never_rules_or_current():
    p = parts(summary_message="摘" * 80, fact_blocks=["- 事一", "- 事二"], profile_block="像" * 30)
    without_summary = PromptParts(p.rules, p.current, p.profile_block, list(p.fact_blocks)).tokens()
    no_window = fit_to_budget(p, p.tokens() - 5 * 110)
    assert no_window.window == [] and no_window.summary_message
    no_summary = fit_to_budget(p, without_summary)
    assert no_summary.summary_message == "" and no_summary.fact_blocks == ["- 事一", "- 事二"]
    one_fact = fit_to_budget(p, no_summary.tokens() - 1)
    assert one_fact.fact_blocks == ["- 事一"] and one_fact.profile_block
    bare = fit_to_budget(p, 10)  # impossible budget: only rules + current remain, never cut
    msgs = bare.messages()
    assert len(msgs) == 2 and msgs[0]["content"].startswith("规" * 100) and msgs[1]["content"] == "今" * 100


async def test_builder_respects_the_budget_end_to_end(make_engine, script, fake_llm):
    eng = make_engine(config=MemoryConfig(window_rounds=5, prompt_budget_tokens=1200, tool_reserve_tokens=200))
    for n in range(5):
        await eng.say(dm("a", f"第{n}轮" + "长" * 150))
    messages, _ = await eng.say(dm("a", "最后的问题"))
    total = sum(message_tokens(m) for m in messages)
    assert total <= 1000
    text = all_text(messages)
    assert "第0轮" not in text and "第4轮" in text  # oldest gone, newest kept
    assert messages[0]["content"].startswith(SYSTEM) and "最后的问题" in messages[-1]["content"]
    assert messages[1]["role"] == "user"  # window starts with a whole round


def test_trim_to_tokens_for_tool_results():
    from core.memory.budget import trim_to_tokens

    assert trim_to_tokens("短文", 10) == "短文"
    cut = trim_to_tokens("字" * 100 + "a" * 400, 50)
    assert cut.endswith("…（已截断）") and estimate_tokens(cut) <= 50 and cut.startswith("字" * 40)
