"""The summary folds overflow in batches: no line is lost from the prompt meanwhile, none is folded
twice (in one process or across two), and a failed batch is folded with the next."""

from __future__ import annotations

import asyncio

from core.memory import MemoryConfig
from core.memory.summary import ChatMemoryStore
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.test_memory_fixtures import (  # noqa: F401
    all_text,
    dm,
    error_503,
    make_engine,
    requests_of,
    script,
)

BATCHED = MemoryConfig(window_rounds=2, summary_fold_rounds=2)
"""A window of 4 lines; 4 more lines (2 rounds) leave it before they are folded, in one request."""


def q(n: int) -> str:
    return f"问题{n}号"


def folded_questions(fake, upto: int) -> list[int]:
    """The questions sent to the summariser, once per request they were in (repeats kept)."""
    return [
        n for body in requests_of(fake, "summary") for n in range(1, upto + 1) if q(n) in all_text(body["messages"])
    ]


async def test_overflow_is_folded_in_batches_and_stays_in_the_prompt_until_then(make_engine, script, fake_llm):
    eng = make_engine(config=BATCHED)
    for n in range(1, 14):
        before = set(folded_questions(fake_llm, n))
        messages, _ = await eng.say(dm("u1", q(n)))
        window = all_text([m for m in messages[1:-1] if not m["content"].startswith("[前情提要]")])
        for k in range(1, n):  # every earlier question: in the summary already, or in the prompt verbatim
            assert k in before or q(k) in window, (n, k)
        assert sum(q(k) in window for k in range(1, n)) <= 3  # the window (2) and at most 1 unfolded round
    assert len(requests_of(fake_llm, "summary")) == 5  # after turns 4, 6, 8, 10 and 12: two rounds each
    assert folded_questions(fake_llm, 13) == list(range(1, 11))  # each once, in order; 11–13 in the window


async def test_a_failed_batch_is_kept_in_the_prompt_and_folded_with_the_next(make_engine, script, fake_llm):
    eng = make_engine(config=BATCHED)
    script.summaries += [error_503(), "S-all"]
    for n in range(1, 5):
        await eng.say(dm("u1", q(n)))
    assert len(requests_of(fake_llm, "summary")) == 1  # rounds 1–2: failed
    messages, _ = await eng.say(dm("u1", q(5)))
    assert all(q(k) in all_text(messages) for k in range(1, 5))  # nothing forgotten meanwhile
    assert "[前情提要]" not in all_text(messages)
    assert folded_questions(fake_llm, 5) == [1, 2, 1, 2, 3]  # the failed batch again, with round 3
    messages, _ = await eng.say(dm("u1", q(6)))
    assert "S-all" in messages[1]["content"] and q(3) not in all_text(messages[2:])
    assert q(4) in all_text(messages[2:]) and q(5) in all_text(messages[2:])


async def test_two_processes_folding_at_once_store_one_summary_and_fold_each_line_once(make_engine, script, fake_llm):
    first, second = make_engine(config=BATCHED), make_engine(config=BATCHED)  # two processes, one file
    key = dm("u1").chat_key

    async def rounds(numbers: range) -> None:
        for n in numbers:
            await first.storage.messages.add(key, "user", q(n), account="telegram:u1", trace_id=f"t{n}")
            await first.storage.messages.add(key, "assistant", f"答{n}", trace_id=f"t{n}")

    await rounds(range(1, 7))  # 12 lines: 8 beyond the window of 4
    folds = [eng.memory.context._summarizer for eng in (first, second)]
    assert folds[0] is not None and folds[1] is not None
    done = await asyncio.gather(folds[0].fold(key, is_group=False), folds[1].fold(key, is_group=False))
    assert sorted(done) == [0, 8]  # one stored rounds 1–4; the other found them folded or lost the race
    state = ChatMemoryStore(first.engine).get(key)
    assert state.summary in {"摘要1", "摘要2"}
    await rounds(range(7, 9))
    assert await folds[1].fold(key, is_group=False) == 4
    last = all_text(requests_of(fake_llm, "summary")[-1]["messages"])
    assert [n for n in range(1, 9) if q(n) in last] == [5, 6]
