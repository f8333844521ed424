"""Window and incremental summary, asserted on what the fake OpenAI server received."""

from __future__ import annotations

from core.memory import MemoryConfig
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.test_memory_fixtures import (  # noqa: F401
    HashEmbedder,
    all_text,
    dm,
    error_503,
    group,
    make_engine,
    requests_of,
    script,
)


def summary_input(body: dict) -> str:
    return body["messages"][-1]["content"]


async def test_only_new_overflow_goes_to_the_summariser(make_engine, script, fake_llm):
    eng = make_engine()  # window: 2 rounds = 4 messages
    script.summaries += ["S-one", "S-two"]
    for n in (1, 2):
        await eng.say(dm("u1", f"问题{n}号"))
    assert requests_of(fake_llm, "summary") == []  # nothing overflowed yet

    await eng.say(dm("u1", "问题3号"))  # round 1 overflows
    first = requests_of(fake_llm, "summary")
    assert len(first) == 1
    text = summary_input(first[0])
    assert "问题1号" in text and "（无）" in text
    assert "问题2号" not in text and "问题3号" not in text

    await eng.say(dm("u1", "问题4号"))  # round 2 overflows
    second = requests_of(fake_llm, "summary")[1]
    text = summary_input(second)
    assert "S-one" in text and "问题2号" in text
    assert "问题1号" not in text and "问题3号" not in text and "问题4号" not in text
    assert second["temperature"] == 0.2 and second["max_tokens"] == 400  # from data/prompts/summary.yaml

    messages, _ = await eng.say(dm("u1", "问题5号"))
    summary_msgs = [m for m in messages if m["role"] == "system" and m["content"].startswith("[前情提要]")]
    assert len(summary_msgs) == 1 and "S-two" in summary_msgs[0]["content"]
    assert messages.index(summary_msgs[0]) == 1  # right after the system rules, before the window
    window_text = all_text(messages[2:-1])
    assert "问题3号" in window_text and "问题4号" in window_text
    assert "问题1号" not in all_text(messages) and "问题2号" not in all_text(messages)
    assert "问题5号" in messages[-1]["content"] and messages[-1]["role"] == "user"


async def test_failed_summary_keeps_old_and_folds_overflow_next_time(make_engine, script, fake_llm):
    eng = make_engine()
    script.summaries += ["S-one", error_503(), "S-merged"]
    for n in range(1, 4):
        await eng.say(dm("u1", f"问题{n}号"))
    assert summary_input(requests_of(fake_llm, "summary")[0]).count("问题1号") == 1

    await eng.say(dm("u1", "问题4号"))  # summarising round 2 fails with 503
    assert len(requests_of(fake_llm, "summary")) == 2
    messages, _ = await eng.say(dm("u1", "问题5号"))
    # the old summary is still injected, the failed overflow is not lost ...
    assert "S-one" in messages[1]["content"]
    third = summary_input(requests_of(fake_llm, "summary")[2])
    # ... and is folded in at the next attempt, together with the newer overflow
    assert "S-one" in third and "问题2号" in third and "问题3号" in third
    assert "问题1号" not in third and "问题4号" not in third and "问题5号" not in third
    messages, _ = await eng.say(dm("u1", "问题6号"))
    assert "S-merged" in messages[1]["content"]


async def test_summary_is_cut_to_the_configured_length(make_engine, script, fake_llm):
    eng = make_engine(config=MemoryConfig(window_rounds=1, summary_fold_rounds=0, summary_max_chars=50))
    script.summaries.append("长" * 500)
    await eng.say(dm("u1", "一"))
    await eng.say(dm("u1", "二"))
    messages, _ = await eng.say(dm("u1", "三"))
    body = messages[1]["content"]
    assert body.count("长") == 50


async def test_window_has_no_tool_traffic_or_orphans(make_engine, script, fake_llm):
    eng = make_engine()
    inc = dm("u1", "第一问")
    turn = await eng.turn(inc)
    msgs = eng.storage.messages
    key = inc.chat_key
    await msgs.add(key, "user", "第一问", person_id=turn.person_id, account=inc.account, trace_id="t1")
    await msgs.add(key, "tool", '{"passages": []}', trace_id="t1")  # tool traffic, if ever stored
    await msgs.add(key, "assistant", "第一答", trace_id="t1")
    await msgs.add(key, "user", "被拦下的注入", account=inc.account, status="injection", trace_id="t2")
    await msgs.add(key, "user", "第二问", account=inc.account, trace_id="t3")
    await msgs.add(key, "assistant", "被取消的答", status="cancelled", trace_id="t3")
    await msgs.add(key, "assistant", "第二答", trace_id="t3")
    messages, _ = await eng.say(dm("u1", "第三问"))
    chat_request = requests_of(fake_llm, "chat")[-1]["messages"]
    assert chat_request == messages
    roles = [m["role"] for m in chat_request]
    assert "tool" not in roles and all("tool_calls" not in m for m in chat_request)
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    text = all_text(chat_request)
    assert "被拦下的注入" not in text and "被取消的答" not in text and '{"passages"' not in text


async def test_window_never_starts_with_an_orphaned_reply(make_engine, script, fake_llm):
    eng = make_engine()  # window of 4 messages
    inc = dm("u1", "x")
    key, msgs = inc.chat_key, eng.storage.messages
    await msgs.add(key, "user", "问A", account=inc.account, trace_id="a")
    await msgs.add(key, "assistant", "答A1", trace_id="a")
    await msgs.add(key, "assistant", "答A2", trace_id="a")  # a reply split in two messages
    await msgs.add(key, "user", "问B", account=inc.account, trace_id="b")
    await msgs.add(key, "assistant", "答B", trace_id="b")
    messages, _ = await eng.say(dm("u1", "问C"))
    window = messages[1:-1]
    assert window[0]["role"] == "user" and "问B" in window[0]["content"]
    assert "答A2" not in all_text(messages)


async def test_group_window_labels_speakers(make_engine, script, fake_llm):
    eng = make_engine()
    await eng.say(group("a", "我先问：何为仁？", name="Alice"))
    messages, _ = await eng.say(group("b", "我再问：何为礼？", name="Bob"))
    assert '<speaker name="Alice">' in messages[1]["content"] and "何为仁" in messages[1]["content"]
    assert messages[2]["role"] == "assistant"
    assert '<speaker name="Bob">' in messages[-1]["content"]


async def test_reset_clears_window_and_summary_but_keeps_history(make_engine, script, fake_llm):
    eng = make_engine()
    for n in range(1, 4):
        await eng.say(dm("u1", f"问题{n}号"))
    stored = await eng.storage.messages.count(dm("u1", "").chat_key)
    result = await eng.command(dm("u1", ""), "reset")
    assert "4 条" in result.text and "前情提要" in result.text
    assert result.extra == {"window": 4, "summary": True}
    messages, _ = await eng.say(dm("u1", "新话题"))
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "问题" not in all_text(messages) and "[前情提要]" not in all_text(messages)
    assert await eng.storage.messages.count(dm("u1", "").chat_key) == stored + 2


async def test_group_chatter_kept_as_context_is_in_the_window(make_engine, script, fake_llm):
    eng = make_engine()
    chatter = group("c", "我觉得仁就是爱人", name="Carol")
    await eng.storage.messages.add(
        chatter.chat_key, "user", chatter.text, account=chatter.account, speaker="Carol", status="context"
    )
    messages, _ = await eng.say(group("b", "夫子怎么看？", name="Bob"))
    assert messages[1]["content"] == '<speaker name="Carol">\n我觉得仁就是爱人\n</speaker>'


async def test_without_an_llm_the_window_still_works_and_nothing_is_summarised(tmp_path):
    from core.memory import build_memory
    from core.ports import Turn
    from core.storage import Storage, create_engine_and_tables

    engine = create_engine_and_tables(f"sqlite:///{tmp_path / 'n.sqlite3'}")
    storage = Storage(engine)
    memory = build_memory(engine, None, HashEmbedder(), MemoryConfig(window_rounds=1))
    for n in range(3):
        inc = dm("u", f"问{n}")
        person = await storage.identities.resolve(inc.platform, inc.user_id)
        await storage.messages.add(inc.chat_key, "user", inc.text, account=inc.account, trace_id=inc.trace_id)
        messages = await memory.context.build(Turn(inc, person, "teaching"), "S")
        await storage.messages.add(inc.chat_key, "assistant", f"答{n}", trace_id=inc.trace_id)
        await memory.context.after_reply(Turn(inc, person, "teaching"), f"答{n}")
        assert memory.context.pending == 0
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "问1" in messages[1]["content"] and "问0" not in all_text(messages)
    engine.dispose()
